-- The pre-sale draw, shared by ops/draw.lua (Line.drawPresale) and ops/presale.lua (the draw
-- exactly once, PresaleStore.draw); mirrors Promoter.drawPresale.
-- The group: the waiting tickets that never moved (band 0, holding their place: not promoted), in
-- arrival order. A promotion always takes a fresh order, above its place, so a member whose order
-- equals its place holds it; only the others need their record read to tell.
local function presale_group()
  local band0 = redis.call('ZRANGE', LINE, '[' .. group(0, 0), '+', 'BYLEX')
  local members, places = {}, {}
  for i = 1, #band0 do
    local place, order = string.sub(band0[i], 9, 24), string.sub(band0[i], 25, 40)
    local token = string.sub(band0[i], 41)
    if place == order or load(token)[PROMOTED] == 0 then
      members[#members + 1] = token
      places[#places + 1] = tonumber(place, 16)
    end
  end
  return members, places
end

-- Gives the group its own places back in the drawn order: drawn[from + k - 1] is the arrival index
-- (0-based) of the ticket taking place k. Returns an error message, and moves nothing, when that is
-- not a permutation of the group.
local function presale_draw(members, places, drawn, from)
  local n = #members
  local seen = {}
  for k = 1, n do
    local i = tonumber(drawn[from + k - 1])
    if not i or i < 0 or i >= n or seen[i] then
      return 'the draw is not a permutation'
    end
    seen[i] = true
  end
  local tickets = {}
  for i = 1, n do
    tickets[i] = load(members[i])
  end
  for i = 1, n do
    dequeue(tickets[i], members[i])
  end
  -- Clients tied to a group member's place stay tied to that place, in their order, and whoever
  -- draws it holds it behind them: it takes a fresher order.
  for k = 1, n do
    local i = tonumber(drawn[from + k - 1]) + 1
    local t = tickets[i]
    t[PLACE] = places[k]
    if redis.call('HEXISTS', GSIZE, group(0, t[PLACE])) == 1 then
      t[ORDER] = redis.call('HINCRBY', META, 'counter', 1)
    end
    save(members[i], t)
    enqueue(t, members[i])
  end
  return nil
end
