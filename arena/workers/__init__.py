"""Workers: the queue and the processes that play the matches.

The Celery application and its Redis transport (celery_app, redis_script), the tasks a worker
runs (tasks: play a match, record its result, qualify a submission, tick a ladder, sweep), and
the live feed a match publishes while it is played (live, live_table).
"""
