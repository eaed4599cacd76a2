-- session_get: mirrors RedisSessionStore.get / InMemorySessionStore.get.
-- KEYS: the room's 18, then ses, sest, sesx (RoomKeys.sessions, named in lib/sessions.lua).
-- ARGV: id. Reads only: the sale generation and the session (lib/sessions.lua sessionReply).
return sessionReply(ARGV[1], sessionLoad(ARGV[1]))
