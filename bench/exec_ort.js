// exec_ort.js — ONNX Runtime's CPU execution provider on one model, the anchor of
// bench/exec-vs-ort.sh: random float32 inputs, `threads` intra-op threads, 2 warm-up runs, then
// `runs` timed runs; prints "ort_median_s=... ort_min_s=...".
// Usage: node exec_ort.js MODEL SHAPES_JSON THREADS RUNS   (SHAPES_JSON: {"input": [1,3,224,224]})
const path = require('path');
const ort = require(path.join(__dirname, '.ort', 'node_modules', 'onnxruntime-node'));
const { timeRuns } = require('./field_ort.js');

async function main() {
    const [model, shapesJson, threads, runs] = process.argv.slice(2);
    const shapes = JSON.parse(shapesJson);
    const session = await ort.InferenceSession.create(model, {
        executionProviders: ['cpu'],
        intraOpNumThreads: Number(threads),
        interOpNumThreads: 1,
        executionMode: 'sequential',
        graphOptimizationLevel: 'all',
    });
    const feeds = {};
    for (const [name, dims] of Object.entries(shapes)) {
        const n = dims.reduce((a, b) => a * b, 1);
        const data = new Float32Array(n);
        for (let i = 0; i < n; i++) data[i] = Math.random() * 2 - 1;
        feeds[name] = new ort.Tensor('float32', data, dims);
    }
    await timeRuns(session, feeds, Number(runs));
}
main().catch((e) => { console.error('exec_ort.js: ' + e); process.exit(1); });
