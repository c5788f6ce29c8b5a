#!/usr/bin/env python3
"""Diagnostic template variants of sm90_gemm's block-scaled loop (session 36, D2): each
removes one piece of the block path's work so that its cost can be timed. The results of
noload, nolds and fadd are wrong on purpose (timing only, never verified).

    diag_variants.py SRC_TEMPLATES_DIR OUT_DIR   -> OUT_DIR/<variant>/templates
variants: base (unchanged), noload (the scale loaders only arrive: no copies), nolds (the
consumers read no scales: sa = sb = a run-time 1), fadd (promotion adds tmp unscaled; the
scale reads stay), noload_nolds."""
import os, shutil, sys

src, out = sys.argv[1], sys.argv[2]
G = "sm90_gemm.cuh"

NOLOAD = [(
    """                    sm90_scale_fetch_bulk(scale_smem + stage * SM90_SCALE_STAGE_BYTES, args,
                                          SM90_TILE_ROW(mt), SM90_TILE_COL(nt), kb, k_blocks,
                                          loader, lane, full_bar + 8 * stage);
""", ""), (
    """                    sm90_scale_fetch(scale_smem + stage * SM90_SCALE_STAGE_BYTES, args,
                                     SM90_TILE_ROW(mt), SM90_TILE_COL(nt), kb, k_blocks, loader,
                                     lane);
""", "")]
NOLDS = [(
    """            bs.sa[s][h] = sm90_ld_shared_f32(src + (r0 + 64 * s + 8 * h) * 4);""",
    """            bs.sa[s][h] = __int_as_float((int)src | 0x3f800000);"""), (
    """        bs.sb[q] = sm90_ld_shared_f32(src + W8A8_BLOCK_M * 4 + 4 * q);""",
    """        bs.sb[q] = __int_as_float((int)(src >> (31 - q)) | 0x3f800000);""")]
FADD = [(
    """    acc[i] = __fmaf_rn(tmp[i], sc, acc[i]);
    acc[i + 1] = __fmaf_rn(tmp[i + 1], sc, acc[i + 1]);""",
    """    (void)sc;
    acc[i] += tmp[i];
    acc[i + 1] += tmp[i + 1];""")]

VARIANTS = {"base": [], "noload": NOLOAD, "nolds": NOLDS, "fadd": FADD,
            "noload_nolds": NOLOAD + NOLDS}

for name, edits in VARIANTS.items():
    dst = os.path.join(out, name, "templates")
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    path = os.path.join(dst, G)
    text = open(path).read()
    for old, new in edits:
        if text.count(old) != 1:
            sys.exit("%s: %d matches for %r" % (name, text.count(old), old[:60]))
        text = text.replace(old, new)
    open(path, "w").write(text)
    print(name, len(edits), "edits")
