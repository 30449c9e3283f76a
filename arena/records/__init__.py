"""Records: what a played match leaves behind.

Storing a match's result, moves and rating changes (recording), and replaying or forking a stored
match from any move (fork).
"""
