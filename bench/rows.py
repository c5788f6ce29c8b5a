"""What bench/compare.py and bench/plot.py share: reading the JSON lines of `w8a8 bench --json`
and bench/peers.py (and the measurements of `w8a8 tune --json`, for the rank tools), naming a row's granularity, the peers each granularity is compared with,
joining ours with a peer on (M, N, K), and the geometric mean.

A timed row is an object with provider, dtype, scale, m, n, k, us, tflops, gbps; a failed one
has provider, m, n, k and error, and no "us" (kept apart, never joined). Lines that do not start
with "{" are skipped, as bench/decode_table.py and scripts/ratios.py skip them.
"""
import gzip
import json
import math

OURS = "w8a8jit"

# The peers of each granularity, the default first. FP8 per-tensor and per-row go against the
# fast-accumulation peers: our FP8 kernels sum in the tensor core's accumulator, as
# use_fast_accum=True does. Block scales are promoted in both ours and torch.block, and INT8
# has one peer (torch._int_mm takes no scales). "cublaslt" is `w8a8 bench`'s own cuBLASLt
# run; "triton.row" appears in older peer files (../shared/bench/peers.py).
PEERS = {
    "tensor": ["torch.tensor.fast", "torch.tensor", "cublaslt", "torch.bf16"],
    "row": ["torch.row.fast", "torch.row", "triton.row", "cublaslt", "torch.bf16"],
    "block": ["torch.block", "torch.block.fast", "cublaslt", "torch.bf16"],
    "int8": ["torch.int8", "torch.bf16"],
}
# The exact-accumulation peer of a granularity whose default peer sums fast.
EXACT_PEER = {"tensor": "torch.tensor", "row": "torch.row"}
KNOWN_PEERS = sorted({p for names in PEERS.values() for p in names})


class RowsError(Exception):
    """A file that cannot be read, or a line that is not JSON; str() is the whole message."""


def json_lines(path):
    """The objects of a JSON-lines file (gzip'ed when its name ends in .gz), in file order;
    lines that do not start with "{" are skipped. Raises RowsError naming the file (and line)."""
    try:
        with (gzip.open(path, "rt") if str(path).endswith(".gz") else open(path)) as f:
            for number, line in enumerate(f, 1):
                line = line.strip()
                if not line.startswith("{"):
                    continue
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as e:
                    raise RowsError(f"{path}:{number}: not JSON: {e}") from None
    except OSError as e:
        raise RowsError(f"cannot read {path}: {e.strerror or e}") from None


def load(path):
    """The rows of a JSON-lines file: (timed, failed), each a list of dicts in file order."""
    timed, failed = [], []
    for row in json_lines(path):
        if "us" in row:
            timed.append(row)
        elif "error" in row:
            failed.append(row)
    return timed, failed


def quick_pass_rows(paths):
    """The quick-pass ("pass": 1) "ok" measurements with a time, of `w8a8 tune --json` logs
    (a tune resumed across calls: every file), in file order. Raises RowsError."""
    for path in paths:
        for row in json_lines(path):
            if (row.get("type") == "measurement" and row.get("status") == "ok"
                    and row.get("pass") == 1 and row.get("us", -1) > 0):
                yield row


def shape_of(row):
    return (int(row["m"]), int(row["n"]), int(row["k"]))


def shape_text(shape):
    return "x".join(str(v) for v in shape)


def shape_order(shape):
    """Sort key: by layer (N, K), then M, as the tables of decode_table.py and ratios.py."""
    m, n, k = shape
    return (n, k, m)


def by_provider(rows):
    """{provider: {(m, n, k): row}}; a later row of the same provider and shape wins."""
    table = {}
    for row in rows:
        table.setdefault(row["provider"], {})[shape_of(row)] = row
    return table


def granularity(row):
    """What a row of ours measures, as PEERS names it: 'tensor', 'row', 'block' or a mixed
    'tensor,row' for FP8 e4m3; 'int8' for INT8 with per-tensor scales ('int8-row' etc.
    otherwise); '<dtype>-<scale>' for anything else (e5m2)."""
    dtype, scale = row.get("dtype", "e4m3"), row.get("scale", "tensor")
    if dtype == "e4m3":
        return scale
    if dtype == "int8":
        return "int8" if scale == "tensor" else f"int8-{scale}"
    return f"{dtype}-{scale}"


def peers_of(granularity_name):
    """The peers a granularity can be compared with (empty for a mix torch has no kernel for)."""
    if granularity_name.startswith("int8"):
        return PEERS["int8"]
    return PEERS.get(granularity_name, ["cublaslt", "torch.bf16"])


def default_peer(granularity_name, exact_accum=False):
    """The peer a granularity is judged against, or None where torch has none."""
    if exact_accum and granularity_name in EXACT_PEER:
        return EXACT_PEER[granularity_name]
    names = peers_of(granularity_name)
    return names[0] if names and names[0] != "cublaslt" else None


def join(ours, peer):
    """[(shape, our row, peer row, ratio)] for the shapes both have, in shape_order; ratio is
    the peer's time over ours (> 1 when ours is faster), from the µs fields, which carry more
    digits than tflops at small M."""
    joined = []
    for shape in sorted(set(ours) & set(peer), key=shape_order):
        our_us, peer_us = float(ours[shape]["us"]), float(peer[shape]["us"])
        if our_us > 0 and peer_us > 0:
            joined.append((shape, ours[shape], peer[shape], peer_us / our_us))
    return joined


def geomean(values):
    values = list(values)
    if not values:
        return float("nan")
    return math.exp(sum(math.log(v) for v in values) / len(values))


def summary(joined):
    """{'shapes', 'geomean', 'worst', 'worst_shape', 'best', 'best_shape'} of a join, or None
    when it is empty."""
    if not joined:
        return None
    worst = min(joined, key=lambda j: j[3])
    best = max(joined, key=lambda j: j[3])
    return {"shapes": len(joined), "geomean": geomean(j[3] for j in joined),
            "worst": worst[3], "worst_shape": worst[0], "best": best[3], "best_shape": best[0]}
