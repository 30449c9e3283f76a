"""Records: what a played match leaves behind.

Storing a match's result, moves and rating changes (recording), and replaying or forking a stored
match from any move (fork). A record is stored as what cannot be recomputed (compact) and read
back, whichever form it is in, through one function (stored.record_data); convert moves stored
records between JSON and the compact form.
"""
