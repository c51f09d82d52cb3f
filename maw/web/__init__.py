"""The web observer: a page that follows a game live (``maw game --web``) or replays a
finished one from its log (``maw web LOGDIR``), with the agents' minds.

The page reads the game log's records (``maw.records.schema``) and nothing else, so a live
game and a replay show the same things. ``observer.Observer`` holds a game's records and
decides what each watcher may receive; ``server`` serves the page over aiohttp with
server-sent events; ``archive`` lists the logs of past games.
"""
