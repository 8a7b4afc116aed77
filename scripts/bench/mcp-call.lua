-- wrk script for bench:mcp: POST tools/call round-robin over the MCP sessions given as arguments
-- (wrk ... -s mcp-call.lua <url> -- <session id> <session id> ...).
local sessions = {}
local n = 0
local body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"cos_bench_rows","arguments":{}}}'

function init(args)
  for i, id in ipairs(args) do sessions[i] = id end
end

function request()
  n = n + 1
  local headers = {}
  headers["Content-Type"] = "application/json"
  headers["Accept"] = "application/json, text/event-stream"
  headers["Mcp-Protocol-Version"] = "2025-11-25"
  headers["Mcp-Session-Id"] = sessions[(n % #sessions) + 1]
  return wrk.format("POST", "/mcp", headers, body)
end

function response(status, headers, body)
  if status ~= 200 then
    io.stderr:write("tools/call answered " .. status .. "\n")
  end
end
