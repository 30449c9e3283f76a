"""Play: people at the table.

Games a person plays against bots in the browser (human) and challenges one author sends another
(challenges).
"""
