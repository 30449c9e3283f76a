import sys, time, json
from referee import bot_client
from referee.bot_client import BotClient, BotFault
orig_act = BotClient.act
def act(self, request_bytes, timeout_s):
    t0 = time.perf_counter()
    try:
        return orig_act(self, request_bytes, timeout_s)
    except BotFault as f:
        p = self.process
        info = {}
        if p is not None and p.view is not None:
            try:
                info["states"] = {k: v.decode() for k, v in p.view.states().items()}
                info["threads"] = {pid: p.view._thread_states(pid) for pid in p.view.pids()}
            except Exception as e:
                info["err"] = repr(e)
        print(f"DBG fault {f.code} after {time.perf_counter()-t0:.2f}s frozen={p.frozen if p else None} gen={p.freeze_generation if p else None} {info} {p.bot_dir.name if p else ''}", file=sys.stderr, flush=True)
        raise
BotClient.act = act
from benchmarks import bench_starve
bench_starve.CALM = bench_starve.SPINNER  # spinner only
out = bench_starve.measure(int(sys.argv[1]), 400, unfrozen=False)
print("RESULT " + json.dumps({k: v.get("forfeits") if isinstance(v, dict) else v for k, v in out.items()}), flush=True)
