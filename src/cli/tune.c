/* w8a8 tune: autotunes shapes (given, a model preset × M buckets, or the keys record mode
 * saw) with w8a8_tune, renders its progress on a terminal, prints every measurement (--json)
 * and a table of winners; after a hung kernel it starts again in a new process to resume
 * (supervise.c). Also the model presets and problem options that bench shares. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ---- presets -------------------------------------------------------------------------------- */

/* Llama 3.1 linear layers at TP = 1: fused qkv, o, fused gate/up, down. */
static const cli_layer llama3_8b[] = {
    {"qkv", 6144, 4096}, {"o", 4096, 4096}, {"gate_up", 28672, 4096}, {"down", 4096, 14336}};
static const cli_layer llama3_70b[] = {
    {"qkv", 10240, 8192}, {"o", 8192, 8192}, {"gate_up", 57344, 8192}, {"down", 8192, 28672}};
/* DeepSeek-V3 (config.json: hidden 7168, q_lora_rank 1536, kv_lora_rank 512, rope dim 64,
 * 128 heads of nope 128 + rope 64 (q/k) and v 128, dense intermediate 18432 in the first 3
 * layers, routed/shared experts of intermediate 2048), FP8 with 128×128 weight blocks. */
static const cli_layer deepseek_v3[] = {
    {"q_a", 1536, 7168},       {"kv_a", 576, 7168},         {"q_b", 24576, 1536},
    {"kv_b", 32768, 512},      {"o", 7168, 16384},          {"dense_gate_up", 36864, 7168},
    {"dense_down", 7168, 18432}, {"expert_gate_up", 4096, 7168}, {"expert_down", 7168, 2048}};

static const struct {
    const char *name;
    const cli_layer *layers;
    size_t count;
    bool block_scales;
} models[] = {
    {"llama3-8b", llama3_8b, sizeof llama3_8b / sizeof llama3_8b[0], false},
    {"llama3-70b", llama3_70b, sizeof llama3_70b / sizeof llama3_70b[0], false},
    {"deepseek-v3", deepseek_v3, sizeof deepseek_v3 / sizeof deepseek_v3[0], true},
};

const cli_layer *cli_model_layers(const char *model, size_t *count, bool *block_scales)
{
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (strcmp(model, models[i].name) == 0) {
            *count = models[i].count;
            *block_scales = models[i].block_scales;
            return models[i].layers;
        }
    return NULL;
}

const char *cli_model_names(void) { return "llama3-8b|llama3-70b|deepseek-v3"; }

static const long long m_buckets[] = {1,   2,   4,   8,    16,   24,   32,   48,   64,
                                      96,  128, 192, 256,  384,  512,  768,  1024, 1536,
                                      2048, 3072, 4096, 6144, 8192, 12288, 16384};

const long long *cli_m_buckets(size_t *count)
{
    *count = sizeof m_buckets / sizeof m_buckets[0];
    return m_buckets;
}

bool cli_parse_list(const char *text, long long min, long long *values, size_t max,
                    size_t *count)
{
    *count = 0;
    const char *p = text;
    while (*p) {
        char *end = NULL;
        long long v = strtoll(p, &end, 10);
        if (end == p || v < min || *count == max || (*end && *end != ','))
            return false;
        values[(*count)++] = v;
        p = *end ? end + 1 : end;
    }
    return *count > 0;
}

/* ---- problem options --------------------------------------------------------------------------- */

static bool parse_scale_kind(const char *text, size_t len, w8a8_scale_kind *kind)
{
    static const w8a8_scale_kind kinds[] = {W8A8_SCALE_TENSOR, W8A8_SCALE_ROW, W8A8_SCALE_BLOCK};
    for (size_t i = 0; i < 3; i++) {
        const char *name = w8a8_scale_kind_name(kinds[i]);
        if (strlen(name) == len && strncmp(text, name, len) == 0) {
            *kind = kinds[i];
            return true;
        }
    }
    return false;
}

static int parse_scales(const char *text, cli_problem_spec *spec)
{
    const char *comma = strchr(text, ',');
    size_t first = comma ? (size_t)(comma - text) : strlen(text);
    if (!parse_scale_kind(text, first, &spec->a_scale) ||
        !parse_scale_kind(comma ? comma + 1 : text, comma ? strlen(comma + 1) : first,
                          &spec->b_scale)) {
        cli_usage_error("--scale: '%s' is not A,B with each tensor, row or block", text);
        return -1;
    }
    spec->scale_given = true;
    return 1;
}

int cli_problem_option(int argc, char **argv, int *i, cli_problem_spec *spec)
{
    const char *opt = argv[*i];
    bool dtype = strcmp(opt, "--dtype") == 0, out = strcmp(opt, "--out") == 0;
    bool scale = strcmp(opt, "--scale") == 0, accum = strcmp(opt, "--accum") == 0;
    if (!dtype && !out && !scale && !accum)
        return 0;
    if (*i + 1 >= argc) {
        cli_usage_error("%s needs a value", opt);
        return -1;
    }
    const char *value = argv[++*i];
    if (scale)
        return parse_scales(value, spec);
    if (accum) {
        if (w8a8_accum_parse(value, &spec->accum) != W8A8_OK) {
            cli_usage_error("--accum: '%s' is not fast or promoted", value);
            return -1;
        }
        return 1;
    }
    w8a8_dtype parsed;
    if (w8a8_dtype_parse(value, &parsed) != W8A8_OK) {
        cli_usage_error("%s: unknown dtype '%s'", opt, value);
        return -1;
    }
    bool ok = dtype ? (parsed == W8A8_E4M3 || parsed == W8A8_E5M2 || parsed == W8A8_INT8)
                    : (parsed == W8A8_BF16 || parsed == W8A8_FP16 || parsed == W8A8_FP32);
    if (!ok) {
        cli_usage_error("%s: '%s' is not one of %s", opt, value,
                        dtype ? "e4m3, e5m2, int8" : "bf16, fp16, fp32");
        return -1;
    }
    *(dtype ? &spec->ab_type : &spec->out_type) = parsed;
    return 1;
}

static void block_layout(w8a8_scale_layout *s, int32_t group_rows, int32_t k_major)
{
    s->group_rows = group_rows;
    s->group_k = 128;
    s->k_major = k_major;
    s->ld = 0;
}

void cli_problem_make(w8a8_problem *p, long long m, long long n, long long k,
                      const cli_problem_spec *spec)
{
    w8a8_problem_init(p, m, n, k, spec->ab_type, spec->out_type);
    p->a_scale.kind = spec->a_scale;
    p->b_scale.kind = spec->b_scale;
    p->accum = spec->accum;
    if (spec->a_scale == W8A8_SCALE_BLOCK)
        block_layout(&p->a_scale, 1, 1); /* 1×128, K-major as DeepGEMM and cuBLASLt take it */
    if (spec->b_scale == W8A8_SCALE_BLOCK)
        block_layout(&p->b_scale, 128, 0);
}

const char *cli_scale_label(const cli_problem_spec *spec)
{
    static _Thread_local char label[32];
    if (spec->a_scale == spec->b_scale)
        return w8a8_scale_kind_name(spec->a_scale);
    snprintf(label, sizeof label, "%s,%s", w8a8_scale_kind_name(spec->a_scale),
             w8a8_scale_kind_name(spec->b_scale));
    return label;
}

/* ---- the command ------------------------------------------------------------------------------ */

#define TUNE_MAX_SHAPES 256
#define TUNE_MAX_MS 64
#define TUNE_MAX_DEVICES 64
/* New processes after hung kernels, by default: each one skips every config that hung before,
 * so a space with a few bad configs completes; one that hangs on many stops, to be looked at. */
#define TUNE_DEFAULT_RESTARTS 5

typedef struct tune_cli {
    cli_problem_spec spec;
    long long shapes[TUNE_MAX_SHAPES][3];
    size_t shape_count;
    const char *model;
    long long ms[TUNE_MAX_MS];
    size_t m_count;
    bool untuned, force, json, tty, seed;
    const char *space, *db;
    double budget, watchdog;
    int max_candidates, threads, explore, settle;
    int restarts;                      /* after a hang (cli_supervise); 0: in this process */
    long long devices[TUNE_MAX_DEVICES];
    size_t device_count;
    long long shard_index, shard_count; /* --shard I/N; count 0: all keys */
    w8a8_context *more[TUNE_MAX_DEVICES];
    size_t more_count;
    w8a8_problem *problems;
    size_t problem_count, problem_cap;
    int progress_width; /* characters of the last progress line */
    size_t keys_done, timed; /* keys ended, candidates timed (quick pass): the whole run */
    double keys_from;        /* elapsed seconds when the first key started (< 0: not yet) */
} tune_cli;

static void tune_usage(FILE *f)
{
    fprintf(f,
            "usage: w8a8 tune [--shape M,N,K]... [--model %s [--m LIST]] [--untuned]\n"
            "                 [--dtype e4m3|e5m2|int8] [--scale A,B] [--out bf16|fp16|fp32]\n"
            "                 [--accum fast|promoted] [--space FILE [--seed]] [--budget SECONDS]\n"
            "                 [--db PATH] [--force]\n"
            "                 [--max-candidates N] [--threads N] [--devices LIST]\n"
            "                 [--shard I/N] [--explore N] [--watchdog SECONDS]\n"
            "                 [--restarts N] [--settle MS] [--json]\n"
            "  --budget S     wall seconds for the whole run, planning included; keys not\n"
            "                 reached end \"budget spent\" (default: none)\n"
            "  --max-candidates N  per key and space, the N best-ranked configs (default: all,\n"
            "                 or with --budget the best 256 not measured before)\n"
            "  --explore N    also time ~N configs per space sampled from its whole space (the\n"
            "                 same for every key): data to validate the space's rank()\n"
            "  --scale A,B    tensor|row|block for A and B (one name: both); default tensor,\n"
            "                 block for deepseek-v3's layers (--shape keys beside it: tensor)\n"
            "  --accum promoted  FP8 per-tensor/per-row keys that promote partial sums into\n"
            "                 fp32 every 128 K (default fast: the tensor core's accumulator)\n"
            "  --m LIST       M values for --model (default: every M bucket 1 … 16384)\n"
            "  --untuned      the keys W8A8_TUNE=record saw on this device\n"
            "  --devices LIST CUDA devices that time keys in parallel, e.g. 0,1 (same model;\n"
            "                 one database, kernels compiled once); default: device 0\n"
            "  --shard I/N    only keys I, I+N, I+2N, … of the list (0 ≤ I < N): run shard\n"
            "                 I of N on each host, then `w8a8 cache merge` the databases\n"
            "  --watchdog S   a kernel not finished after S seconds has hung (default 60, or\n"
            "                 $W8A8_TUNE_WATCHDOG_S): it is recorded as \"hung\", never a winner,\n"
            "                 never launched again; its process can no longer use the GPU\n"
            "  --restarts N   after a hang, tune again in a new process (which resumes) at\n"
            "                 most N times (default %d; 0: exit with status %d at once)\n"
            "  --settle MS    idle the GPU MS milliseconds (1..1000) before each finalist's\n"
            "                 timing: at its power cap a GPU's clock follows what ran before;\n"
            "                 100 steadies the final times (2.4 s more a key; default 0)\n"
            "  --json         one object per measured candidate and per winner\n"
            "Without --space, each key first times the cache's winners (every layer, any\n"
            "device of the arch) of that key and of M buckets within 4x of it, at most 6\n"
            "(\"cache_seed\": true): the winner is never slower than what the dispatcher ran\n"
            "before, and a stale bucket borrows a neighbour's better config. With --space\n"
            "the tune times exactly what the space lists; --seed adds those winners that the\n"
            "space's template runs, so that its winner too is never slower than before.\n"
            "The best 8 of the quick pass are timed again as CUDA-graph replays (at least\n"
            "20 calls each, as peers.py times torch); a space's variants (launch arguments\n"
            "outside its search, sm90_gemm's trigger=1) are first tried on each of them and\n"
            "join that final pass. A key's winner is its fastest row among those with at\n"
            "least half the samples of its best-sampled one: a config timed only in the\n"
            "quick pass does not compete with the finalists.\n"
            "On a terminal, a progress line on stderr: keys planned, then the key at hand,\n"
            "its phase and candidates, candidates timed in the run, time against the budget\n"
            "(or an estimate of what is left); none with --json or when stderr is piped.\n",
            cli_model_names(), TUNE_DEFAULT_RESTARTS, CLI_EXIT_HUNG);
}

static bool add_problem(tune_cli *t, const w8a8_problem *p)
{
    if (t->problem_count == t->problem_cap) {
        size_t cap = t->problem_cap ? 2 * t->problem_cap : 64;
        w8a8_problem *grown = realloc(t->problems, cap * sizeof *grown);
        if (!grown)
            return false;
        t->problems = grown;
        t->problem_cap = cap;
    }
    t->problems[t->problem_count++] = *p;
    return true;
}

/* "0,1,…": CUDA ordinals ≥ 0, none twice. */
static bool parse_devices(const char *text, long long *devices, size_t max, size_t *count)
{
    if (!cli_parse_list(text, 0, devices, max, count))
        return false;
    for (size_t i = 0; i < *count; i++) {
        if (devices[i] > INT32_MAX)
            return false;
        for (size_t j = 0; j < i; j++)
            if (devices[j] == devices[i])
                return false;
    }
    return true;
}

/* "I/N" with 0 ≤ I < N. */
static bool parse_shard(const char *text, long long *index, long long *count)
{
    char *end = NULL;
    long long i = strtoll(text, &end, 10);
    if (end == text || *end != '/')
        return false;
    const char *rest = end + 1;
    long long n = strtoll(rest, &end, 10);
    if (end == rest || *end || n < 1 || i < 0 || i >= n)
        return false;
    *index = i;
    *count = n;
    return true;
}

/* Keeps keys shard_index, shard_index + shard_count, … of the list (the list is the same on
 * every host given the same options, so the shards partition it). */
static void apply_shard(tune_cli *t)
{
    if (t->shard_count < 1)
        return;
    size_t kept = 0, total = t->problem_count;
    for (size_t i = 0; i < total; i++)
        if ((long long)(i % (size_t)t->shard_count) == t->shard_index)
            t->problems[kept++] = t->problems[i];
    t->problem_count = kept;
    fprintf(stderr, "w8a8: tune: shard %lld/%lld: %zu of %zu keys\n", t->shard_index,
            t->shard_count, kept, total);
}

/* The options that are not problem options; 1 consumed, 0 unknown, -1 error. */
static int tune_option(tune_cli *t, int argc, char **argv, int *i)
{
    const char *opt = argv[*i];
    static const char *const flags[] = {"--untuned", "--force", "--json", "--seed"};
    bool *flag_fields[] = {&t->untuned, &t->force, &t->json, &t->seed};
    for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++)
        if (strcmp(opt, flags[f]) == 0) {
            *flag_fields[f] = true;
            return 1;
        }
    static const char *const valued[] = {"--shape", "--model", "--m", "--space", "--budget",
                                         "--db", "--max-candidates", "--threads", "--devices",
                                         "--shard", "--explore", "--watchdog", "--restarts",
                                         "--settle"};
    size_t which = 0, count = sizeof valued / sizeof valued[0];
    while (which < count && strcmp(opt, valued[which]) != 0)
        which++;
    if (which == count)
        return 0;
    if (*i + 1 >= argc) {
        cli_usage_error("%s needs a value", opt);
        return -1;
    }
    const char *v = argv[++*i];
    bool ok = true;
    switch (which) {
    case 0:
        ok = t->shape_count < TUNE_MAX_SHAPES &&
             cli_parse_shape(v, &t->shapes[t->shape_count][0], &t->shapes[t->shape_count][1],
                             &t->shapes[t->shape_count][2]);
        t->shape_count += ok;
        break;
    case 1: t->model = v; break;
    case 2: ok = cli_parse_list(v, 1, t->ms, TUNE_MAX_MS, &t->m_count); break;
    case 3: t->space = v; break;
    case 4: t->budget = atof(v); ok = t->budget > 0; break;
    case 5: t->db = v; break;
    case 6: t->max_candidates = atoi(v); ok = t->max_candidates > 0; break;
    case 7: t->threads = atoi(v); ok = t->threads > 0; break;
    case 8: ok = parse_devices(v, t->devices, TUNE_MAX_DEVICES, &t->device_count); break;
    case 9: ok = parse_shard(v, &t->shard_index, &t->shard_count); break;
    case 10: t->explore = atoi(v); ok = t->explore > 0; break;
    case 11: t->watchdog = atof(v); ok = t->watchdog > 0; break;
    case 12:
        t->restarts = atoi(v);
        ok = *v && strspn(v, "0123456789") == strlen(v) && t->restarts >= 0;
        break;
    case 13:
        t->settle = atoi(v);
        ok = *v && strspn(v, "0123456789") == strlen(v) && t->settle >= 1 && t->settle <= 1000;
        break;
    }
    if (!ok) {
        cli_usage_error("%s: bad value '%s'", opt, v);
        return -1;
    }
    return 1;
}

static int tune_parse(tune_cli *t, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            tune_usage(stdout);
            return 0;
        }
        int r = cli_problem_option(argc, argv, &i, &t->spec);
        if (r == 0)
            r = tune_option(t, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r == 0) {
            cli_usage_error("tune: unknown option '%s'", argv[i]);
            tune_usage(stderr);
            return 2;
        }
    }
    if (!t->shape_count && !t->model && !t->untuned) {
        tune_usage(stderr);
        return cli_usage_error("tune: give --shape, --model or --untuned");
    }
    if (t->seed && !t->space)
        return cli_usage_error("tune: --seed goes with --space (a tune without one always "
                               "times the cache's winners first)");
    return -1; /* go on */
}

/* Shapes and model layers × Ms, as problems. */
static int problems_from_options(tune_cli *t)
{
    for (size_t i = 0; i < t->shape_count; i++) {
        w8a8_problem p;
        cli_problem_make(&p, t->shapes[i][0], t->shapes[i][1], t->shapes[i][2], &t->spec);
        if (!add_problem(t, &p))
            return cli_fail("out of memory");
    }
    if (!t->model)
        return 0;
    size_t layer_count = 0, bucket_count = 0;
    bool block = false;
    const cli_layer *layers = cli_model_layers(t->model, &layer_count, &block);
    if (!layers)
        return cli_usage_error("--model: unknown model '%s' (%s)", t->model, cli_model_names());
    if (block && !t->spec.scale_given)
        t->spec.a_scale = t->spec.b_scale = W8A8_SCALE_BLOCK;
    const long long *ms = t->m_count ? t->ms : cli_m_buckets(&bucket_count);
    size_t m_count = t->m_count ? t->m_count : bucket_count;
    for (size_t l = 0; l < layer_count; l++)
        for (size_t i = 0; i < m_count; i++) {
            w8a8_problem p;
            cli_problem_make(&p, ms[i], layers[l].n, layers[l].k, &t->spec);
            if (!add_problem(t, &p))
                return cli_fail("out of memory");
        }
    return 0;
}

static int visit_untuned(void *user, const w8a8_cache_entry *entry)
{
    tune_cli *t = user;
    return add_problem(t, &entry->problem) ? 0 : 1;
}

static int problems_from_untuned(tune_cli *t, w8a8_context *ctx)
{
    w8a8_device_info info;
    w8a8_status st = w8a8_context_device_info(ctx, &info);
    if (st != W8A8_OK)
        return cli_fail_ctx(ctx, st);
    w8a8_cache_filter filter = {.flags = W8A8_CACHE_UNTUNED | W8A8_CACHE_USER_ONLY,
                                .arch = info.arch, .device_name = info.name};
    size_t before = t->problem_count;
    if ((st = w8a8_cache_list(ctx, &filter, visit_untuned, t)) != W8A8_OK)
        return cli_fail_ctx(ctx, st);
    if (t->problem_count == before)
        fprintf(stderr, "w8a8: no untuned keys recorded for %s (run with W8A8_TUNE=record)\n",
                info.name);
    return 0;
}

/* ---- progress and output ---------------------------------------------------------------------- */

static const char *phase_name(w8a8_tune_phase phase)
{
    switch (phase) {
    case W8A8_TUNE_PHASE_PROBLEM: return "start";
    case W8A8_TUNE_PHASE_COMPILE: return "compile";
    case W8A8_TUNE_PHASE_QUICK: return "quick";
    case W8A8_TUNE_PHASE_FINAL: return "final";
    case W8A8_TUNE_PHASE_MEASURED: return "measured";
    case W8A8_TUNE_PHASE_DONE: return "done";
    case W8A8_TUNE_PHASE_PLAN: return "plan";
    }
    return "?";
}

static void print_shape_fields(FILE *f, const w8a8_problem *p)
{
    fprintf(f, "\"m\": %lld, \"n\": %lld, \"k\": %lld, \"dtype\": \"%s\", \"scale\": \"%s%s%s\", "
               "\"out\": \"%s\"",
            (long long)p->m, (long long)p->n, (long long)p->k, w8a8_dtype_name(p->a_type),
            w8a8_scale_kind_name(p->a_scale.kind), p->a_scale.kind == p->b_scale.kind ? "" : ",",
            p->a_scale.kind == p->b_scale.kind ? "" : w8a8_scale_kind_name(p->b_scale.kind),
            w8a8_dtype_name(p->out_type));
}

static double tflops_of(const w8a8_problem *p, double us)
{
    return us > 0 ? 2.0 * (double)p->m * (double)p->n * (double)p->k / us / 1e6 : 0.0;
}

static void print_measurement_json(const w8a8_problem *p, const w8a8_tune_measurement *m)
{
    printf("{\"type\": \"measurement\", ");
    print_shape_fields(stdout, p);
    printf(", \"family\": ");
    cli_json_string(stdout, m->family);
    printf(", \"config\": ");
    cli_json_string(stdout, m->config);
    printf(", \"status\": \"%s\", \"pass\": %d, \"default\": %s, \"us\": %.3f, \"spread_us\": %.3f, "
           "\"samples\": %d, \"batch\": %d, \"tflops\": %.1f, \"verify_error\": %.3g, "
           "\"registers\": %d, \"spills\": %d, \"compile_ms\": %.1f, \"rank_position\": %ld, "
           "\"explored\": %s, \"cache_seed\": %s, \"variant\": %s}\n",
           m->status, m->pass, m->is_default ? "true" : "false", m->median_us, m->spread_us,
           m->samples, m->batch, tflops_of(p, m->median_us), m->verify_error, m->registers,
           m->spills, m->compile_ms, m->rank_position, m->explored ? "true" : "false",
           m->cache_seed ? "true" : "false", m->variant ? "true" : "false");
    fflush(stdout);
}

static void print_result_json(const w8a8_tune_result *r)
{
    printf("{\"type\": \"winner\", ");
    print_shape_fields(stdout, &r->problem);
    printf(", \"status\": \"%s\", \"family\": ", w8a8_status_string(r->status));
    cli_json_string(stdout, r->family);
    printf(", \"config\": ");
    cli_json_string(stdout, r->config);
    printf(", \"us\": %.3f, \"tflops\": %.1f, \"default_us\": %.3f, \"candidates\": %zu, "
           "\"skipped\": %zu, \"compiled\": %zu, \"rejected\": %zu, \"compile_failed\": %zu, "
           "\"verify_failed\": %zu, \"timed\": %zu, \"seconds\": %.1f}\n",
           r->best_us, tflops_of(&r->problem, r->best_us), r->default_us, r->candidates,
           r->skipped, r->compiled, r->rejected, r->compile_failed, r->verify_failed, r->timed,
           r->seconds);
    fflush(stdout);
}

/* One line on stderr, redrawn in place: the key, its phase, a bar over its candidates, its
 * best time so far, the run's candidates timed, the time against the budget (or, with none,
 * an estimate of what is left from the keys done). While planning: keys planned. */
static void draw_progress(tune_cli *t, const w8a8_tune_progress *p)
{
    enum { BAR = 24 };
    char bar[BAR + 1];
    size_t filled = p->total ? p->done * BAR / p->total : 0;
    for (size_t i = 0; i < BAR; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[BAR] = '\0';
    char clock[64];
    if (p->budget_seconds > 0)
        snprintf(clock, sizeof clock, "%.0f/%.0f s", p->elapsed_seconds, p->budget_seconds);
    else if (t->keys_done > 0 && p->phase != W8A8_TUNE_PHASE_PLAN)
        snprintf(clock, sizeof clock, "%.0f s, ~%.0f s left", p->elapsed_seconds,
                 (p->elapsed_seconds - t->keys_from) / (double)t->keys_done *
                     (double)(p->problem_count - t->keys_done));
    else
        snprintf(clock, sizeof clock, "%.0f s", p->elapsed_seconds);
    int width;
    if (p->phase == W8A8_TUNE_PHASE_PLAN) {
        width = fprintf(stderr, "\rplanning [%s] %zu/%zu keys  %s\033[K", bar, p->done, p->total,
                        clock);
    } else {
        char best[64] = "";
        if (p->best_us >= 0)
            snprintf(best, sizeof best, " best %.2f us", p->best_us);
        width = fprintf(stderr, "\r[%zu/%zu] %lldx%lldx%lld %-7s [%s] %zu/%zu%s  %zu timed  %s\033[K",
                        p->problem_index + 1, p->problem_count, (long long)p->problem->m,
                        (long long)p->problem->n, (long long)p->problem->k,
                        phase_name(p->phase), bar, p->done, p->total, best, t->timed, clock);
    }
    t->progress_width = width;
    fflush(stderr);
}

static void on_progress(const w8a8_tune_progress *p, void *user)
{
    tune_cli *t = user;
    if (p->phase != W8A8_TUNE_PHASE_PLAN && t->keys_from < 0)
        t->keys_from = p->elapsed_seconds;
    if (p->phase == W8A8_TUNE_PHASE_MEASURED) {
        t->timed += p->measurement->pass == 1 && strcmp(p->measurement->status, "ok") == 0;
        if (t->json)
            print_measurement_json(p->problem, p->measurement);
        return;
    }
    if (p->phase == W8A8_TUNE_PHASE_DONE) {
        t->keys_done++;
        if (t->tty && t->progress_width)
            fprintf(stderr, "\r\033[K");
        t->progress_width = 0;
        if (t->json)
            print_result_json(p->result);
        else if (!t->tty) {
            w8a8_status st = p->result->status;
            const char *why = st == W8A8_OK              ? ""
                              : st == W8A8_BUDGET_SPENT ? "its share of the budget ran out"
                                                        : w8a8_status_string(st);
            fprintf(stderr, "[%zu/%zu] %lldx%lldx%lld: %s %s %.2f us (%zu of %zu candidates timed%s%s)\n",
                    p->problem_index + 1, p->problem_count, (long long)p->problem->m,
                    (long long)p->problem->n, (long long)p->problem->k,
                    p->result->family[0] ? p->result->family : "-", p->result->config,
                    p->result->best_us, p->result->timed, p->result->candidates, *why ? "; " : "",
                    why);
        }
        return;
    }
    if (t->tty)
        draw_progress(t, p);
}

static void print_table(const w8a8_tune_report *r)
{
    printf("%-22s %6s %-16s %-40s %10s %9s %10s\n", "shape (MxNxK)", "bucket", "family",
           "config", "us", "TFLOP/s", "vs default");
    for (size_t i = 0; i < r->count; i++) {
        const w8a8_tune_result *x = &r->results[i];
        char shape[64], vs[32] = "-";
        snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)x->problem.m,
                 (long long)x->problem.n, (long long)x->problem.k);
        if (x->default_us > 0 && x->best_us > 0)
            snprintf(vs, sizeof vs, "%.2fx", x->default_us / x->best_us);
        if (x->status != W8A8_OK && !x->family[0]) {
            printf("%-22s %6lld %s\n", shape, (long long)x->problem.m, w8a8_status_string(x->status));
            continue;
        }
        printf("%-22s %6lld %-16s %-40s %10.2f %9.1f %10s\n", shape, (long long)x->problem.m,
               x->family, x->config[0] ? x->config : "(none)", x->best_us,
               tflops_of(&x->problem, x->best_us), vs);
    }
    printf("%.1f s%s\n", r->seconds, r->budget_spent ? " (budget spent: results are partial)" : "");
}

/* Where the run's time went: after the table, or as one JSON object. */
static void print_profile(const w8a8_tune_report *r, bool json)
{
    const w8a8_tune_profile *p = &r->profile;
    if (json) {
        printf("{\"profile\": {\"seconds\": %.3f, \"plan_s\": %.3f, \"compile_wait_s\": %.3f, "
               "\"buffers_s\": %.3f, \"reference_s\": %.3f, \"verify_s\": %.3f, "
               "\"timing_s\": %.3f, \"record_s\": %.3f, \"kernels\": %zu, "
               "\"kernels_compiled\": %zu, \"kernels_from_store\": %zu, \"kernels_unused\": %zu, "
               "\"compile_threads\": %d, \"compile_busy_s\": %.3f, \"compile_wall_s\": %.3f, "
               "\"pool_utilization\": %.3f, \"candidates_timed\": %zu}}\n",
               r->seconds, p->plan_seconds, p->compile_wait_seconds, p->buffers_seconds,
               p->reference_seconds, p->verify_seconds, p->timing_seconds, p->record_seconds,
               p->kernels, p->kernels_compiled, p->kernels_from_store, p->kernels_unused,
               p->compile_threads, p->compile_busy_seconds, p->compile_wall_seconds,
               p->pool_utilization, p->candidates_timed);
        return;
    }
    double known = p->plan_seconds + p->compile_wait_seconds + p->buffers_seconds +
                   p->reference_seconds + p->verify_seconds + p->timing_seconds +
                   p->record_seconds;
    printf("time: plan %.1f s, waiting for compiles %.1f s, input buffers %.1f s, reference "
           "%.1f s, verify %.1f s, timing %.1f s, database %.1f s, other %.1f s\n",
           p->plan_seconds, p->compile_wait_seconds, p->buffers_seconds, p->reference_seconds,
           p->verify_seconds, p->timing_seconds, p->record_seconds, r->seconds - known);
    printf("kernels: %zu distinct, %zu compiled, %zu from the store, %zu never needed; pool of "
           "%d threads %.0f%% busy over %.1f s (%.1f s of compiling); %zu candidates timed\n",
           p->kernels, p->kernels_compiled, p->kernels_from_store, p->kernels_unused,
           p->compile_threads, 100.0 * p->pool_utilization, p->compile_wall_seconds,
           p->compile_busy_seconds, p->candidates_timed);
}

static int tune_run_cli(tune_cli *t, w8a8_context *ctx)
{
    if (t->untuned && problems_from_untuned(t, ctx) != 0)
        return 1;
    apply_shard(t);
    if (!t->problem_count) {
        fprintf(stderr, "w8a8: tune: no key to tune%s\n",
                t->shard_count ? " in this shard" : "");
        return 0;
    }
    w8a8_tune_options options = {.problems = t->problems, .problem_count = t->problem_count,
                                 .space = t->space, .budget_seconds = t->budget,
                                 .force = t->force, .max_candidates = t->max_candidates,
                                 .threads = t->threads, .explore = t->explore,
                                 .more_contexts = t->more,
                                 .more_context_count = t->device_count ? t->device_count - 1 : 0,
                                 .watchdog_seconds = t->watchdog,
                                 .final_settle_ms = t->settle, .seed_space = t->seed};
    w8a8_tune_report report;
    t->tty = cli_is_tty() && !t->json; /* no progress line beside --json output */
    w8a8_status st = w8a8_tune(ctx, &options, on_progress, t, &report);
    if (t->tty && t->progress_width)
        fprintf(stderr, "\r\033[K");
    if (st == W8A8_HUNG) {
        /* The hung kernel keeps the GPU busy: closing the contexts or the driver's own exit
         * handlers could wait for it forever, so this process ends here (the database has
         * every row already). The next run prints the table. */
        cli_fail_ctx(ctx, st);
        fflush(stdout);
        fflush(stderr);
        _Exit(CLI_EXIT_HUNG);
    }
    bool any = false;
    for (size_t i = 0; i < report.count; i++)
        any |= report.results[i].status == W8A8_OK || report.results[i].family[0];
    if (!t->json && any)
        print_table(&report);
    if (report.count)
        print_profile(&report, t->json);
    w8a8_tune_report_free(&report);
    if (st == W8A8_BUDGET_SPENT) {
        fprintf(stderr, "w8a8: %s\n", w8a8_errmsg(ctx));
        return 0;
    }
    return st == W8A8_OK ? 0 : cli_fail_ctx(ctx, st);
}

/* Contexts of --devices after the first, on the same database and cubin store. */
static int open_more(tune_cli *t)
{
    for (size_t i = 1; i < t->device_count; i++) {
        w8a8_context_options options = {.cache_db = t->db, .device_ordinal = (int)t->devices[i]};
        w8a8_context *more = NULL;
        w8a8_status st = w8a8_context_open(&more, &options);
        if (st == W8A8_OK && !w8a8_context_has_device(more))
            st = W8A8_NO_DEVICE;
        if (st != W8A8_OK) {
            fprintf(stderr, "w8a8: --devices: device %lld: %s\n", t->devices[i],
                    more ? w8a8_errmsg(more) : w8a8_status_string(st));
            w8a8_context_close(more);
            return 1;
        }
        t->more[t->more_count++] = more;
    }
    return 0;
}

/* Everything after parsing: in this process, or in each child of cli_supervise. */
static int tune_work(void *user)
{
    tune_cli *t = user;
    int rc = problems_from_options(t);
    w8a8_context *ctx = NULL;
    if (rc == 0) {
        w8a8_context_options options = {.cache_db = t->db,
                                        .device_ordinal = t->device_count ? (int)t->devices[0] : 0};
        w8a8_status st = w8a8_context_open(&ctx, &options);
        rc = st == W8A8_OK ? open_more(t) : cli_fail_ctx(ctx, st);
        if (rc == 0)
            rc = tune_run_cli(t, ctx);
    }
    for (size_t i = 0; i < t->more_count; i++)
        w8a8_context_close(t->more[i]);
    w8a8_context_close(ctx);
    free(t->problems);
    return rc;
}

int cmd_tune(int argc, char **argv)
{
    tune_cli t;
    memset(&t, 0, sizeof t);
    t.spec.ab_type = W8A8_E4M3;
    t.spec.out_type = W8A8_BF16;
    t.restarts = TUNE_DEFAULT_RESTARTS;
    t.keys_from = -1.0;
    int rc = tune_parse(&t, argc, argv);
    if (rc >= 0)
        return rc;
    return t.restarts > 0 ? cli_supervise("tune", t.restarts, tune_work, &t) : tune_work(&t);
}
