-- session_ticket: mirrors RedisSessionStore.byTicket / InMemorySessionStore.byTicket.
-- KEYS: the room's 18, then ses, sest, sesx (RoomKeys.sessions, named in lib/sessions.lua).
-- ARGV: ticket. Reads only: the sale generation and the session the ticket's claim started.
local id = redis.call('HGET', SEST, ARGV[1])
if not id then
  return sessionReply('', nil)
end
return sessionReply(id, sessionLoad(id))
