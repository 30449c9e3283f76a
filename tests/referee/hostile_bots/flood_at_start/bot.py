"""Hostile: prints without end while it starts, before it serves (so before it is ready)."""

line = "flood_at_start: " + "spam " * 200
while True:
    print(line)
