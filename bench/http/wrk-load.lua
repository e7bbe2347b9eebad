-- The http suite's load generator script for wrk (Debian package `wrk`, LuaJIT), run by
-- bench/http/wrk-load.ts in a process of its own:
--   wrk -t<threads> -c<connections> -d<seconds> --timeout 60s -s wrk-load.lua <url> -- get <path>
--   wrk -t<agents> -c<agents> -d<seconds> --timeout 60s -s wrk-load.lua <url> -- append <session prefix>
-- `get`: GET <path> over every connection, as fast as each answers (wrk's closed loop).
-- `append`: one connection per thread, each thread an agent appending one small user message at
-- a time to its own session `<prefix>-<agent>` (started by the bench before), each entry's
-- parentId the agent's previous stored entry; the answers' statuses are counted per thread.
-- At the end, one line `WRK_JSON {...}` on stdout: wrk's summary, its latency histogram read at
-- every 0.1 percent (microseconds), and the statuses.

local threads = {}
local next_agent = 0

function setup(thread)
  thread:set("agent", next_agent)
  next_agent = next_agent + 1
  table.insert(threads, thread)
end

local mode, target
local sent, leaf, pending = 0, nil, nil
statuses = {}

local function json_string(text)
  return '"' .. text:gsub('[%c"\\]', function(c) return string.format("\\u%04x", c:byte()) end) .. '"'
end

local fixed_request, session, entries_path
local json_headers = { ["Content-Type"] = "application/json" }

function init(args)
  mode, target = args[1], args[2]
  if mode == "get" then
    fixed_request = wrk.format("GET", target)
    -- wrk then skips parsing the answers' headers and bodies for Lua
    response = nil
  elseif mode == "append" then
    session = target .. "-" .. agent
    entries_path = "/sessions/" .. session .. "/entries"
  else
    error("wrk-load.lua: mode must be get or append, not " .. tostring(mode))
  end
end

-- defined at the top level so that wrk sees a dynamic request (it looks before init runs)
function request()
  if fixed_request ~= nil then return fixed_request end
  sent = sent + 1
  pending = session .. "-" .. sent
  local now = os.time()
  local body = '{"entries":[{"type":"message","id":' .. json_string(pending) ..
    ',"parentId":' .. (leaf and json_string(leaf) or "null") ..
    ',"timestamp":"' .. os.date("!%Y-%m-%dT%H:%M:%S.000Z", now) .. '","message":{"role":"user","content":' ..
    json_string("follow-up question " .. pending .. ": what changed since the last run?") ..
    ',"timestamp":' .. string.format("%d", now * 1000) .. '}}]}'
  return wrk.format("POST", entries_path, json_headers, body)
end

function response(status, _, body)
  local key = tostring(status)
  statuses[key] = (statuses[key] or 0) + 1
  if status == 200 then
    leaf = pending
  elseif first_problem == nil then
    first_problem = key .. ": " .. string.sub(body or "", 1, 300)
  end
end

function done(summary, latency, _)
  local points = {}
  for tenth = 1, 999 do
    points[#points + 1] = string.format("%d", latency:percentile(tenth / 10))
  end
  local merged, problem = {}, nil
  for _, thread in ipairs(threads) do
    for key, count in pairs(thread:get("statuses") or {}) do
      merged[key] = (merged[key] or 0) + count
    end
    problem = problem or thread:get("first_problem")
  end
  local status_fields = {}
  for key, count in pairs(merged) do
    status_fields[#status_fields + 1] = json_string(key) .. ":" .. string.format("%d", count)
  end
  local e = summary.errors
  io.write("WRK_JSON {",
    '"durationUs":', string.format("%d", summary.duration),
    ',"requests":', string.format("%d", summary.requests),
    ',"bytes":', string.format("%d", summary.bytes),
    ',"errors":{"connect":', e.connect, ',"read":', e.read, ',"write":', e.write,
    ',"status":', e.status, ',"timeout":', e.timeout, '}',
    ',"latencyUs":{"min":', string.format("%d", latency.min), ',"max":', string.format("%d", latency.max),
    ',"mean":', string.format("%.1f", latency.mean), ',"tenths":[', table.concat(points, ","), ']}',
    ',"statuses":{', table.concat(status_fields, ","), '}',
    ',"firstProblem":', problem and json_string(problem) or "null",
    "}\n")
end
