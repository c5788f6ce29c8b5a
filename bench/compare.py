#!/usr/bin/env python3
"""Runs our kernels (`w8a8 bench --grid G --scale S --json --graph`, once per granularity) and
the torch peers (bench/peers.py, in this process) on the same shapes, one after the other in one
command, and prints per shape the speed ratio ours / peer (the peer's time over ours: > 1 when
ours is faster), with the geometric mean and the worst shape per peer. Both sides are timed as
replayed CUDA graphs; --launches times ours launched from the host instead.

Granularities (--scale, repeatable): tensor, row, block (each A,B alike), a mix such as
tensor,row, or int8 (INT8 with per-tensor scales). Default: block on the dsv3 grid, tensor,
row and int8 on the others. Each is judged against its default peer, FP8 per-tensor and per-row
against the fast-accumulation peers (torch.tensor.fast, torch.row.fast: our FP8 kernels sum in
the tensor core's accumulator as they do; --exact-accum for torch.tensor and torch.row), block
against torch.block, int8 against torch.int8; --also adds columns (default torch.bf16).

    bench/compare.py --grid decode
    bench/compare.py --grid llama3 --max-m 512 --scale row --save bench/results-new
    bench/compare.py --grid decode --from bench/results-2026-11-23     (no GPU: saved rows)

--interleave R measures shape by shape instead of grid after grid: for each shape, R rounds of
ours (one `w8a8 bench` process a granularity) and the peers, alternating which goes first, and
keeps each side's median round. A whole grid in one process runs the GPU into its power cap and
the clock down (an H200 at 700 W: 1,980 MHz idle, 1,410-1,650 under a long run), so a shape's
time depends on what ran before it: single shapes moved by up to 20 % between back-to-back grid
rounds, while one shape per process stayed within 0.5 % over 3 rounds
(bench/results-2026-11-26-s21/, Y6, Y7, Y10).

--save DIR writes ours-<grid>-<A>-<B>.jsonl (ours-<grid>-int8.jsonl) and peers-<grid>.jsonl,
the names under bench/results-*/, which --from DIR reads instead of running anything (with
--interleave: the median rounds, and every round in rounds-<grid>.jsonl). Exit 2 on
a usage error or when the w8a8 binary, torch or the CUDA device is missing; 1 when a run fails.
"""
import argparse
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the sources
import peers  # noqa: E402  (bench/peers.py; imports without torch)
import rows  # noqa: E402

SCALE_KINDS = ("tensor", "row", "block")
DEFAULT_BIN = "build/default/w8a8"


class UsageError(Exception):
    pass


class RunError(Exception):
    pass


class Granularity:
    """One --scale value: how `w8a8 bench` is asked for it, the name rows.granularity gives
    its rows, and the stem of its saved file."""

    def __init__(self, text):
        if text == "int8":
            self.dtype, self.a_scale, self.b_scale = "int8", "tensor", "tensor"
        else:
            kinds = text.split(",")
            if len(kinds) == 1:
                kinds = kinds * 2
            if len(kinds) != 2 or not all(k in SCALE_KINDS for k in kinds):
                raise UsageError(f"--scale: '{text}' is not tensor, row, block, A,B of those, "
                                 "or int8")
            self.dtype, (self.a_scale, self.b_scale) = "e4m3", kinds

    @property
    def name(self):
        scale = self.a_scale if self.a_scale == self.b_scale else f"{self.a_scale},{self.b_scale}"
        return rows.granularity({"dtype": self.dtype, "scale": scale})

    @property
    def file_stem(self):
        return "int8" if self.dtype == "int8" else f"{self.a_scale}-{self.b_scale}"

    def bench_args(self):
        return ["--dtype", self.dtype, "--scale", f"{self.a_scale},{self.b_scale}"]


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="compare.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--grid", choices=sorted(peers.GRIDS), default="small",
                    help="the shapes (default small)")
    ap.add_argument("--scale", action="append", default=[], metavar="S",
                    help="a granularity to run (repeatable; see below)")
    ap.add_argument("--bin", default=os.environ.get("W8A8_BIN", DEFAULT_BIN), metavar="PATH",
                    help=f"the w8a8 command (default $W8A8_BIN, else {DEFAULT_BIN})")
    ap.add_argument("--min-m", type=int, default=0, metavar="M", help="shapes with M >= this")
    ap.add_argument("--max-m", type=int, default=None, metavar="M", help="shapes with M <= this")
    ap.add_argument("--exact-accum", action="store_true",
                    help="judge FP8 per-tensor/per-row against torch.tensor / torch.row")
    ap.add_argument("--promoted", action="store_true",
                    help="ours with --accum promoted (FP8 partial sums promoted into fp32 every "
                         "128 K), judged against torch.tensor / torch.row (implies "
                         "--exact-accum); saved as ours-<grid>-<scale>-promoted.jsonl")
    ap.add_argument("--also", default="torch.bf16", metavar="LIST",
                    help="more peer columns, comma-separated ('' for none; default torch.bf16)")
    ap.add_argument("--samples", type=int, default=None, metavar="N", help="passed to w8a8 bench")
    ap.add_argument("--launches", action="store_true",
                    help="time ours as calls launched from the host, batch after batch (default: "
                    "w8a8 bench --graph, replayed CUDA graphs, as the peers are timed)")
    ap.add_argument("--no-cublaslt", action="store_true",
                    help="passed to w8a8 bench (no 'cublaslt' rows, a faster run)")
    ap.add_argument("--calls", type=int, default=20, metavar="N",
                    help="peers: calls per graph (default 20)")
    ap.add_argument("--replays", type=int, default=10, metavar="N",
                    help="peers: timed replays (default 10)")
    ap.add_argument("--interleave", type=int, default=0, metavar="R",
                    help="shape by shape, R rounds of ours and the peers alternating; the "
                    "median round of each (see below)")
    ap.add_argument("--save", metavar="DIR", help="write the raw rows here (bench/results-* names)")
    ap.add_argument("--from", dest="load_dir", metavar="DIR",
                    help="read saved rows from DIR instead of running")
    ap.add_argument("--json", action="store_true",
                    help="print JSON lines (one per shape and peer, then summaries), not a table")
    args = ap.parse_args(argv)
    try:
        texts = args.scale or (["block"] if args.grid == "dsv3" else ["tensor", "row", "int8"])
        args.granularities = [Granularity(t) for t in texts]
        args.also = [p for p in args.also.split(",") if p]
        unknown = [p for p in args.also if p not in rows.KNOWN_PEERS]
        if unknown:
            raise UsageError(f"--also: unknown peer '{','.join(unknown)}' "
                             f"(known: {', '.join(rows.KNOWN_PEERS)})")
        if args.load_dir and args.save:
            raise UsageError("--from and --save exclude each other")
        if args.load_dir and not os.path.isdir(args.load_dir):
            raise UsageError(f"--from: '{args.load_dir}' is not a folder")
        if (args.samples is not None and args.samples < 1) or args.calls < 1 or args.replays < 1:
            raise UsageError("--samples, --calls and --replays must be at least 1")
        if args.interleave < 0 or (args.interleave and args.load_dir):
            raise UsageError("--interleave: a count of rounds (at least 1), not with --from")
    except UsageError as e:
        ap.error(str(e))
    args.exact_accum = args.exact_accum or args.promoted
    return args


# ---- rows: run or read ---------------------------------------------------------------------

def promoted_suffix(args):
    """What --promoted adds to the saved file names of our rows."""
    return "-promoted" if args.promoted else ""


def run_ours(args, granularity, shapes, by_shape=False):
    """`w8a8 bench --json` for one granularity: its timed rows and failed rows. The shapes go
    as --shape items when by_shape or an M range narrows the grid, else as --grid."""
    command = [args.bin, "bench", "--json", *granularity.bench_args()]
    if by_shape or args.min_m > 0 or args.max_m is not None:
        for m, n, k in shapes:
            command += ["--shape", f"{m},{n},{k}"]
    else:
        command += ["--grid", args.grid]
    if args.samples:
        command += ["--samples", str(args.samples)]
    if not args.launches:
        command.append("--graph")
    if args.no_cublaslt:
        command.append("--no-cublaslt")
    if args.promoted:
        command += ["--accum", "promoted"]
    print(f"compare: {' '.join(command)}", file=sys.stderr, flush=True)
    # stderr passes through: the command's warnings and failures are the user's to read
    done = subprocess.run(command, stdout=subprocess.PIPE, universal_newlines=True)
    timed, failed = [], []
    for number, line in enumerate(done.stdout.splitlines(), 1):
        line = line.strip()
        if line.startswith("{"):
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise RunError(f"w8a8 bench line {number} is not JSON: {e}") from None
            (timed if "us" in row else failed).append(row)
    if done.returncode != 0:
        raise RunError(f"'{' '.join(command)}' failed (exit {done.returncode})")
    return timed, failed


def peer_providers(args):
    """The torch providers the comparison needs (cublaslt comes from w8a8 bench)."""
    wanted = []
    for g in args.granularities:
        first = rows.default_peer(g.name, args.exact_accum)
        for name in ([first] if first else []) + args.also:
            if name in peers.PROVIDERS and name not in wanted:
                wanted.append(name)
    return wanted


def collect_run(args):
    """{granularity name: (our timed rows, failed rows)}, peers' (timed, failed)."""
    if not (os.path.isfile(args.bin) and os.access(args.bin, os.X_OK)):
        raise UsageError(f"no w8a8 command at '{args.bin}' (build it, or give --bin or "
                         "$W8A8_BIN)")
    shapes = peers.grid_shapes(args.grid, args.min_m, args.max_m)
    if not shapes:
        upper = f" and <= {args.max_m}" if args.max_m is not None else ""
        raise UsageError(f"no shape of grid {args.grid} has M >= {args.min_m}{upper}")
    peers.require_cuda()  # before ours runs: a missing torch fails in a second, not after it
    if args.interleave:
        ours, peer_rows, every = run_interleaved(args, shapes)
    else:
        ours = {g.name: run_ours(args, g, shapes) for g in args.granularities}
        peer_rows, every = [], None
        peers.run(shapes, peer_providers(args), peer_rows.append, args.calls, args.replays)
    peer_timed = [r for r in peer_rows if "us" in r]
    peer_failed = [r for r in peer_rows if "us" not in r]
    if args.save:
        save(args, ours, peer_rows, every)
    return ours, (peer_timed, peer_failed)


def median_rows(timed):
    """Of rows timed in several rounds, the median round's row per (provider, shape) (the lower
    of the two middle ones for an even count), in first-seen order."""
    groups = {}
    for row in timed:
        groups.setdefault((row["provider"], rows.shape_of(row)), []).append(row)
    return [sorted(g, key=lambda r: float(r["us"]))[(len(g) - 1) // 2] for g in groups.values()]


def run_interleaved(args, shapes):
    """--interleave: per shape, args.interleave rounds of every granularity of ours (a process
    each) and the peers, ours first in even rounds, the peers first in odd ones. Returns ours and
    the peers' rows as collect_run does (the median rounds; failed rows once per shape) and every
    round's rows, each with its "round"."""
    providers = peer_providers(args)
    timed = {g.name: [] for g in args.granularities}
    failed = {g.name: [] for g in args.granularities}
    peer_timed, peer_failed, every = [], [], []
    for shape in shapes:
        for r in range(args.interleave):
            def ours_round():
                for g in args.granularities:
                    t, f = run_ours(args, g, [shape], by_shape=True)
                    timed[g.name] += [dict(row, round=r) for row in t]
                    if r == 0:
                        failed[g.name] += f
                    every.extend(dict(row, round=r) for row in t + f)

            def peers_round():
                got = []
                peers.run([shape], providers, got.append, args.calls, args.replays)
                peer_timed.extend(dict(row, round=r) for row in got if "us" in row)
                if r == 0:
                    peer_failed.extend(row for row in got if "us" not in row)
                every.extend(dict(row, round=r) for row in got)

            for step in ((ours_round, peers_round) if r % 2 == 0 else (peers_round, ours_round)):
                step()
    ours = {name: (median_rows(timed[name]), failed[name]) for name in timed}
    return ours, median_rows(peer_timed) + peer_failed, every


def save(args, ours, peer_rows, every=None):
    os.makedirs(args.save, exist_ok=True)
    stem = f"ours-{args.grid}-{{}}{promoted_suffix(args)}.jsonl"
    files = {os.path.join(args.save, stem.format(g.file_stem)): sum(ours[g.name], [])
             for g in args.granularities}
    files[os.path.join(args.save, f"peers-{args.grid}.jsonl")] = peer_rows
    if every is not None:
        files[os.path.join(args.save, f"rounds-{args.grid}.jsonl")] = every
    for path, lines in files.items():
        with open(path, "w") as f:
            for row in lines:
                f.write(json.dumps(row) + "\n")
        print(f"compare: wrote {path}", file=sys.stderr)


def collect_saved(args):
    """As collect_run, from the files --save writes."""
    def read(stem):
        path = os.path.join(args.load_dir, (f"{stem}-{args.grid}" if stem == "peers"
                                            else f"ours-{args.grid}-{stem}") + ".jsonl")
        if not os.path.isfile(path):
            raise UsageError(f"--from: no {path} (--save DIR writes ours-<grid>-<scale>.jsonl "
                             "and peers-<grid>.jsonl)")
        return rows.load(path)
    ours = {g.name: read(g.file_stem + promoted_suffix(args)) for g in args.granularities}
    return ours, read("peers")


def in_m_range(args, row):
    return args.min_m <= int(row["m"]) and (args.max_m is None or int(row["m"]) <= args.max_m)


def within_m(args, table):
    return {shape: row for shape, row in table.items() if in_m_range(args, row)}


# ---- the comparison ------------------------------------------------------------------------

def compare(args, ours, peer_rows):
    """[(granularity name, [peer names], {shape: our row}, {peer: joined}, our failures)]."""
    peer_timed, _ = peer_rows
    results = []
    for g in args.granularities:
        timed, failed = ours[g.name]
        by = rows.by_provider(timed)
        mine = within_m(args, by.get(rows.OURS, {}))
        available = rows.by_provider(peer_timed)
        available.update({p: t for p, t in by.items() if p != rows.OURS})  # cublaslt
        first = rows.default_peer(g.name, args.exact_accum)
        names = []
        for name in ([first] if first else []) + args.also:
            if name not in names and name in rows.peers_of(g.name):
                names.append(name)
        joined = {name: rows.join(mine, available.get(name, {})) for name in names}
        results.append((g.name, names, mine, joined, failed))
    return results


def print_table(args, results, peer_failed):
    print(f"grid {args.grid}: ratio = peer us / ours us (> 1: ours faster)")
    for name, names, mine, joined, failed in results:
        lookup = {p: {j[0]: j for j in joined[p]} for p in names}
        print(f"\n{name}: ours vs {', '.join(names) if names else '(no peer)'}")
        head = f"{'M':>5} {'N':>6} {'K':>6} {'ours us':>9}"
        for p in names:
            head += f" {p + ' us':>{max(len(p) + 3, 9)}} {'ratio':>6}"
        print(head)
        for shape in sorted(mine, key=rows.shape_order):
            line = f"{shape[0]:>5} {shape[1]:>6} {shape[2]:>6} {float(mine[shape]['us']):>9.2f}"
            for p in names:
                width = max(len(p) + 3, 9)
                j = lookup[p].get(shape)
                line += (f" {float(j[2]['us']):>{width}.2f} {j[3]:>6.3f}" if j
                         else f" {'-':>{width}} {'-':>6}")
            print(line)
        for p in names:
            s = rows.summary(joined[p])
            if s:
                print(f"{name} vs {p}: {s['shapes']} shapes, geometric mean {s['geomean']:.3f}, "
                      f"worst {s['worst']:.3f} at {rows.shape_text(s['worst_shape'])}, "
                      f"best {s['best']:.3f} at {rows.shape_text(s['best_shape'])}")
            else:
                print(f"{name} vs {p}: no shape with both times")
        print_failures(f"{name}: ours", [r for r in failed if in_m_range(args, r)])
    shown = {p for _, names, _, _, _ in results for p in names}
    for provider in sorted(shown):
        print_failures(provider, [r for r in peer_failed
                                  if r["provider"] == provider and in_m_range(args, r)])


def print_failures(who, failed, listed=6):
    """One line for the failed rows of one provider: where, and the first one's error."""
    if not failed:
        return
    where = ", ".join(rows.shape_text(rows.shape_of(r)) for r in failed[:listed])
    more = f" and {len(failed) - listed} more" if len(failed) > listed else ""
    print(f"{who}: no time at {where}{more}: {failed[0]['error'][:160]}")


def print_json(args, results):
    for name, names, _, joined, _ in results:
        for p in names:
            for shape, our_row, peer_row, ratio in joined[p]:
                print(json.dumps({"type": "ratio", "grid": args.grid, "granularity": name,
                                  "peer": p, "m": shape[0], "n": shape[1], "k": shape[2],
                                  "ours_us": our_row["us"], "peer_us": peer_row["us"],
                                  "ratio": round(ratio, 4)}))
    for name, names, _, joined, _ in results:
        for p in names:
            s = rows.summary(joined[p])
            out = {"type": "summary", "grid": args.grid, "granularity": name, "peer": p,
                   "shapes": s["shapes"] if s else 0}
            if s:
                out.update(geomean=round(s["geomean"], 4), worst=round(s["worst"], 4),
                           worst_shape=rows.shape_text(s["worst_shape"]),
                           best=round(s["best"], 4), best_shape=rows.shape_text(s["best_shape"]))
            print(json.dumps(out))


def main(argv):
    args = parse_args(argv)
    try:
        ours, peer_rows = collect_saved(args) if args.load_dir else collect_run(args)
    except (UsageError, peers.PeersUnavailable) as e:
        print(f"compare: {e}", file=sys.stderr)
        return 2
    except (RunError, rows.RowsError) as e:
        print(f"compare: {e}", file=sys.stderr)
        return 1
    results = compare(args, ours, peer_rows)
    if args.json:
        print_json(args, results)
    else:
        print_table(args, results, peer_rows[1])
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:  # the reader (head, less) left: not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
