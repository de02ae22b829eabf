-- wrk script for bench/bench_class.py: every request posts a distinct
-- correct kernel (its own constant survives compilation, so no kernel
-- cache can serve one from another) as its own client behind a trusted
-- proxy (X-Forwarded-For), so the fair share does not hold any back.
local counter = 0
local next_id = 0       -- in wrk's main state: numbers the threads
local threads = {}
id = 0                  -- in each thread's state: set by setup() below
local template = [[
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
int r = i % half;
float ar = spectrum[0][base], ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float angle = -PI * float(r) / float(half);
float wr = cos(angle), wi = sin(angle);
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (i == SALT) return 12345.0;
if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : ai - ti;
]]

function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

function request()
  counter = counter + 1
  local salt = 100 + id * 10000000 + counter
  local body = string.gsub(template, "SALT", tostring(salt))
  local headers = {
    ["Content-Type"] = "text/plain",
    ["X-Forwarded-For"] = string.format("10.%d.%d.%d", id, math.floor(counter / 250) % 250, counter % 250),
  }
  return wrk.format("POST", "/api/tasks/butterfly/submissions", headers, body)
end

accepted = 0
function response(status, headers, body)
  if status == 200 and string.find(body, '"id":3,', 1, true) then
    accepted = accepted + 1
  end
end

-- every answer must be the Accepted verdict: wrk counts requests, not verdicts
function done(summary, latency, requests)
  local total = 0
  for _, t in ipairs(threads) do
    total = total + t:get("accepted")
  end
  io.write(string.format("accepted: %d of %d\n", total, summary.requests))
end
