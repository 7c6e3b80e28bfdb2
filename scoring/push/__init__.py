"""Push: the pages people watch get each change as it is committed, over Server-Sent Events.

``notify`` announces a committed change (PostgreSQL ``NOTIFY`` inside the write's transaction),
``listener`` is each app process's one ``LISTEN`` connection and its fan-out to the open
streams (it keeps the viewers' parts that the writes drew: ``scoring/lei/drawn.py``, for the
parts that ``scoring/lei/watch.py`` notes), ``fragments`` draws every other part once per
change and audience for all of them,
``topics`` says which change a polled page part follows, and ``views`` is the stream itself.
Without PostgreSQL, or under a WSGI server, push is off and the pages poll (static/js/poll.js).
"""
