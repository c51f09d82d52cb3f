"""Hosting games: the XMPP servers, rosters and seats, the host of a game, and the runners
of an AI player or a person in their own process."""
