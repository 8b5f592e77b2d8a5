// field_ort.js — ONNX Runtime (npm onnxruntime-node, CPU provider) for bench/field-models.sh.
//   node field_ort.js shapes MODEL FEEDS_JSON          one run; prints {output: dims} as JSON,
//       with "?values": {name: 0|1} for every bool scalar output (If conditions)
//   node field_ort.js time MODEL FEEDS_JSON THREADS RUNS
//       2 warm-up runs, RUNS timed runs; prints "ort_median_s=... ort_min_s=..."
// FEEDS_JSON: {"x": {"dims": [1,3,64,64], "type": "float32"}} (bench/field_models.py spec; an
// entry with "value" is filled with it, e.g. a sample rate);
// inputs are random in [-1, 1) (integers: 0..3).
const path = require('path');
const ort = require(path.join(__dirname, '.ort', 'node_modules', 'onnxruntime-node'));

const ARRAYS = {
    float32: Float32Array, float64: Float64Array, int32: Int32Array, int8: Int8Array,
    uint8: Uint8Array, int64: BigInt64Array, bool: Uint8Array,
};

function feedsOf(spec) {
    const feeds = {};
    for (const [name, { dims, type, value }] of Object.entries(spec)) {
        const n = dims.reduce((a, b) => a * b, 1);
        if (type === 'float16') throw new Error(`input '${name}': float16 feeds not handled`);
        const A = ARRAYS[type];
        if (!A) throw new Error(`input '${name}': type ${type} not handled`);
        const data = new A(n);
        for (let i = 0; i < n; i++) {
            const r = Math.random();
            data[i] = type === 'int64' ? BigInt(Math.floor(r * 4)) :
                type.startsWith('float') ? r * 2 - 1 : Math.floor(r * 4);
            if (value !== undefined) data[i] = type === 'int64' ? BigInt(value) : value;
        }
        feeds[name] = new ort.Tensor(type, data, dims);
    }
    return feeds;
}

async function main() {
    const [mode, model, feedsJson, threads, runs] = process.argv.slice(2);
    const session = await ort.InferenceSession.create(model, {
        executionProviders: ['cpu'],
        intraOpNumThreads: Number(threads || 1),
        interOpNumThreads: 1,
        executionMode: 'sequential',
        // shapes: the graph as written (no fusion renames or drops the intermediates)
        graphOptimizationLevel: mode === 'shapes' ? 'disabled' : 'all',
    });
    const feeds = feedsOf(JSON.parse(feedsJson));
    if (mode === 'shapes') {
        const out = await session.run(feeds);
        const shapes = {};
        const values = {};
        for (const [name, t] of Object.entries(out)) {
            shapes[name] = t.dims.map(Number);
            // bool scalars: the conditions of If nodes (field_models.py inline)
            if (t.type === 'bool' && t.size === 1) values[name] = Number(t.data[0]);
        }
        shapes['?values'] = values;
        for (const [name, t] of Object.entries(feeds)) shapes[name] = t.dims.map(Number);
        console.log(JSON.stringify(shapes));
        return;
    }
    if (mode !== 'time') throw new Error('usage: shapes|time MODEL FEEDS_JSON [THREADS RUNS]');
    await timeRuns(session, feeds, Number(runs));
}

// 2 warm-up runs, then `runs` timed runs; prints "ort_median_s=... ort_min_s=..." (shared with
// exec_ort.js).
async function timeRuns(session, feeds, runs) {
    for (let i = 0; i < 2; i++) await session.run(feeds);
    const t = [];
    for (let i = 0; i < runs; i++) {
        const t0 = process.hrtime.bigint();
        await session.run(feeds);
        t.push(Number(process.hrtime.bigint() - t0) * 1e-9);
    }
    t.sort((a, b) => a - b);
    const m = t.length % 2 ? t[(t.length - 1) / 2] : (t[t.length / 2 - 1] + t[t.length / 2]) / 2;
    console.log(`ort_median_s=${m} ort_min_s=${t[0]}`);
}

module.exports = { timeRuns };
if (require.main === module)
    main().catch((e) => { console.error('field_ort.js: ' + e); process.exit(1); });
