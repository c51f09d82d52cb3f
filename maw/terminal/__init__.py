"""A person at a terminal: the screen (``maw play``) and the text commands it understands."""
