#!/usr/bin/python3
"""make_int8_cases.py — the dynamic int8 cases of tests/unit/test_exec_qint.c, computed with numpy
from the ONNX definitions (DynamicQuantizeLinear, ConvInteger, MatMulInteger), independently of
the executor: int8_cases.h (inputs, weights, zero points and the expected outputs) and one ONNX
model per case (the CLI test measures them). Seeded: running it again gives the same bytes.

  /usr/bin/python3 tests/data/int8/make_int8_cases.py            write the files
  /usr/bin/python3 tests/data/int8/make_int8_cases.py --ort DIR  also run each model on ONNX
      Runtime (DIR/node_modules/onnxruntime-node, e.g. bench/.ort) and require the same outputs
"""
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
F32 = np.float32


def dql(x):
    """DynamicQuantizeLinear (ONNX opset 11), float32 arithmetic, round half to even."""
    x = x.astype(F32)
    mn, mx = min(F32(0), x.min()), max(F32(0), x.max())
    scale = F32((mx - mn) / F32(255))
    zp = np.clip(np.rint(F32(-mn) / scale), 0, 255) if scale != 0 else F32(0)
    y = np.clip(np.rint(x / scale) + zp, 0, 255) if scale != 0 else np.zeros_like(x)
    return y.astype(np.int64), scale, int(zp)


def conv_integer(x, xz, w, wz, strides, pads, dil, group):
    """ConvInteger: sum (x - xz)(w - wz[c]) over each window; padding holds xz (adds 0)."""
    n, c, *sp = x.shape
    co, cg, *k = w.shape
    r = len(sp)
    xs = x - xz
    xp = np.pad(xs, [(0, 0), (0, 0)] + [(pads[i], pads[i + r]) for i in range(r)])
    wz = np.broadcast_to(np.asarray(wz).reshape(-1), (co,))
    ws = w - wz.reshape([co] + [1] * (w.ndim - 1))
    out = [(sp[i] + pads[i] + pads[i + r] - (k[i] - 1) * dil[i] - 1) // strides[i] + 1
           for i in range(r)]
    y = np.zeros([n, co] + out, dtype=np.int64)
    cog = co // group
    for o in np.ndindex(*out):
        sl = [slice(o[i] * strides[i], o[i] * strides[i] + (k[i] - 1) * dil[i] + 1, dil[i])
              for i in range(r)]
        win = xp[(slice(None), slice(None)) + tuple(sl)]  # n, c, k...
        for g in range(group):
            xg = win[:, g * cg:(g + 1) * cg].reshape(n, -1)
            wg = ws[g * cog:(g + 1) * cog].reshape(cog, -1)
            y[(slice(None), slice(g * cog, (g + 1) * cog)) + o] = xg @ wg.T
    return y


def matmul_integer(a, az, b, bz):
    bz = np.broadcast_to(np.asarray(bz).reshape(-1), (b.shape[1],))
    return (a - az) @ (b - bz.reshape(1, -1))


def case_conv(rng, name, xdims, wdims, wz, wtype, strides, pads, dil, group):
    x = rng.integers(-60, 91, size=xdims).astype(np.int64)
    lo, hi = (0, 256) if wtype == 'u8' else (-100, 101)
    w = rng.integers(lo, hi, size=wdims).astype(np.int64)
    xq, sc, zp = dql(x)
    y = conv_integer(xq, zp, w, wz, strides, pads, dil, group)
    assert np.abs(y).max() < 2 ** 24, "outputs must be exact in float32"
    attrs = dict(strides=strides, pads=pads, dilations=dil, group=group)
    return dict(name=name, op='ConvInteger', x=x, w=w, wz=np.asarray(wz, dtype=np.int64),
                wtype=wtype, xq=xq, scale=sc, zp=zp, y=y, attrs=attrs)


def case_matmul(rng, name, adims, bdims, bz):
    a = rng.integers(-60, 91, size=adims).astype(np.int64)
    b = rng.integers(0, 256, size=bdims).astype(np.int64)
    aq, sc, zp = dql(a)
    y = matmul_integer(aq, zp, b, bz)
    return dict(name=name, op='MatMulInteger', x=a, w=b, wz=np.asarray(bz, dtype=np.int64),
                wtype='u8', xq=aq, scale=sc, zp=zp, y=y, attrs={})


def with_post(c, rng, axis):
    """The layers ONNX Runtime's exports put after the op: Cast, Mul by x's scale, Add of a
    per-channel bias, Relu — in float32, each rounded as its own layer rounds it."""
    ch = c['y'].shape[axis]
    shape = [1] * c['y'].ndim
    shape[axis] = ch
    bias = rng.integers(-3000, 3000, size=shape).astype(np.int64)
    z = c['y'].astype(F32) * F32(c['scale'])
    z = (z + bias.astype(F32)).astype(F32)
    c['bias'] = bias
    c['z'] = np.maximum(z, F32(0)).astype(F32)
    return c


def cases():
    rng = np.random.default_rng(26)
    return [
        # per-channel u8 weight zero points, stride 2, pads 1
        case_conv(rng, 'conv_pc', [1, 4, 9, 9], [8, 4, 3, 3],
                  rng.integers(0, 256, size=8), 'u8', [2, 2], [1, 1, 1, 1], [1, 1], 1),
        # one u8 zero point (143, as isnet-int8's first layer), groups, dilation, uneven pads
        with_post(case_conv(rng, 'conv_group', [1, 6, 7, 8], [4, 3, 3, 2], 143, 'u8', [1, 2],
                            [2, 0, 1, 1], [2, 1], 2), rng, 1),
        # s8 weights whose zero point fits: shifted, no term
        case_conv(rng, 'conv_s8', [1, 3, 6, 6], [5, 3, 3, 3], -5, 's8', [1, 1],
                  [1, 1, 1, 1], [1, 1], 1),
        # 1-D, per-channel
        case_conv(rng, 'conv_1d', [1, 3, 20], [5, 3, 4], rng.integers(0, 256, size=5), 'u8',
                  [3], [2, 1], [1], 1),
        # batched rows, per-column zero points
        with_post(case_matmul(rng, 'matmul_pc', [2, 3, 16], [16, 6],
                              rng.integers(0, 256, size=6)), rng, 2),
    ]


def model(c):
    wt = TensorProto.UINT8 if c['wtype'] == 'u8' else TensorProto.INT8
    npt = np.uint8 if c['wtype'] == 'u8' else np.int8
    inits = [numpy_helper.from_array(c['w'].astype(npt), 'w'),
             numpy_helper.from_array(c['wz'].astype(npt), 'wz')]
    nodes = [helper.make_node('DynamicQuantizeLinear', ['x'], ['xq', 'xs', 'xz']),
             helper.make_node(c['op'], ['xq', 'w', 'xz', 'wz'], ['y'], **c['attrs'])]
    outs = []
    if 'z' in c:  # y is read by the chain only: its output is z
        inits.append(numpy_helper.from_array(c['bias'].astype(np.float32), 'bias'))
        nodes += [helper.make_node('Cast', ['y'], ['yf'], to=TensorProto.FLOAT),
                  helper.make_node('Mul', ['yf', 'xs'], ['ys']),
                  helper.make_node('Add', ['ys', 'bias'], ['yb']),
                  helper.make_node('Relu', ['yb'], ['z'])]
        outs.append(helper.make_tensor_value_info('z', TensorProto.FLOAT, list(c['z'].shape)))
    else:
        outs.append(helper.make_tensor_value_info('y', TensorProto.INT32, list(c['y'].shape)))
    outs += [helper.make_tensor_value_info('xq', TensorProto.UINT8, list(c['x'].shape)),
             helper.make_tensor_value_info('xs', TensorProto.FLOAT, []),
             helper.make_tensor_value_info('xz', TensorProto.UINT8, [])]
    g = helper.make_graph(nodes, c['name'],
                          [helper.make_tensor_value_info('x', TensorProto.FLOAT,
                                                         list(c['x'].shape))], outs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)],
                          producer_name='make_int8_cases.py')
    m.ir_version = 7
    onnx.checker.check_model(m)
    return m


def model_3d():
    """A 3-D ConvInteger, which the executor does not run: its row must say why."""
    w = numpy_helper.from_array(np.ones([2, 2, 1, 1, 1], dtype=np.uint8), 'w')
    nodes = [helper.make_node('DynamicQuantizeLinear', ['x'], ['xq', 'xs', 'xz']),
             helper.make_node('ConvInteger', ['xq', 'w', 'xz'], ['y'])]
    g = helper.make_graph(nodes, 'conv_3d',
                          [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 2, 3, 3, 3])],
                          [helper.make_tensor_value_info('y', TensorProto.INT32, [1, 2, 3, 3, 3])],
                          [w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)],
                          producer_name='make_int8_cases.py')
    m.ir_version = 7
    onnx.checker.check_model(m)
    return m


def c_array(ctype, name, v):
    flat = [int(t) for t in np.asarray(v).reshape(-1)]
    rows = [', '.join(str(t) for t in flat[i:i + 16]) for i in range(0, len(flat), 16)]
    return 'static const %s %s[%d] = {\n    %s};\n' % (ctype, name, len(flat),
                                                      ',\n    '.join(rows))


def header(cs):
    out = ['/* clang-format off */\n/* int8_cases.h: made by make_int8_cases.py (numpy); do not edit. */\n']
    for c in cs:
        n = c['name']
        out.append('/* %s: %s, x %s, w %s (%s), attrs %s */\n' % (
            n, c['op'], list(c['x'].shape), list(c['w'].shape), c['wtype'],
            json.dumps(c['attrs'])))
        out.append(c_array('int64_t', n + '_x_dims', c['x'].shape))
        out.append(c_array('int64_t', n + '_x', c['x']))
        out.append(c_array('int64_t', n + '_w_dims', c['w'].shape))
        out.append(c_array('int64_t', n + '_w', c['w']))
        out.append(c_array('int64_t', n + '_wz', c['wz'].reshape(-1)))
        out.append(c_array('int64_t', n + '_xq', c['xq']))
        out.append('static const float %s_scale = %.9gf;\n' % (n, c['scale']))
        out.append('static const int64_t %s_zp = %d;\n' % (n, c['zp']))
        out.append(c_array('int64_t', n + '_y_dims', c['y'].shape))
        out.append(c_array('int64_t', n + '_y', c['y']))
        if 'z' in c:
            out.append(c_array('int64_t', n + '_bias', c['bias'].reshape(-1)))
            out.append(c_array('int64_t', n + '_bias_dims', c['bias'].shape))
            z = ', '.join(float(t).hex() + 'f' for t in c['z'].reshape(-1))  # exact
            out.append('static const float %s_z[%d] = {%s};\n' % (n, c['z'].size, z))
        for k in ('strides', 'pads', 'dilations'):
            if k in c['attrs']:
                out.append(c_array('int64_t', '%s_%s' % (n, k), c['attrs'][k]))
        if 'group' in c['attrs']:
            out.append('static const int64_t %s_group = %d;\n' % (n, c['attrs']['group']))
        out.append('\n')
    out.append('/* clang-format on */\n')
    return ''.join(out)


ORT_JS = r"""
const ort = require(process.argv[1]);
const fs = require('fs');
(async () => {
  for (const c of JSON.parse(fs.readFileSync(process.argv[2]))) {
    try {
      const s = await ort.InferenceSession.create(c.model, {logSeverityLevel: 4});
      const out = await s.run({x: new ort.Tensor('float32', Float32Array.from(c.x), c.dims)});
      const r = {};
      for (const k of ['y', 'z', 'xq', 'xs', 'xz'])
        if (out[k]) r[k] = Array.from(out[k].data, Number);
      console.log(JSON.stringify({name: c.name, out: r}));
    } catch (e) {
      console.log(JSON.stringify({name: c.name, error: e.message.split('\n')[0]}));
    }
  }
})().catch(e => { console.error(e.message); process.exit(1); });
"""


def check_ort(cs, ort_dir):
    mod = os.path.join(os.path.abspath(ort_dir), 'node_modules', 'onnxruntime-node')
    spec = [dict(name=c['name'], model=os.path.join(HERE, c['name'] + '.onnx'),
                 x=c['x'].reshape(-1).tolist(), dims=list(c['x'].shape)) for c in cs]
    tmp = os.path.join(HERE, '.ort-feeds.json')
    with open(tmp, 'w') as f:
        json.dump(spec, f)
    try:
        res = subprocess.run(['node', '-e', ORT_JS, mod, tmp], capture_output=True, text=True)
    finally:
        os.remove(tmp)
    if res.returncode:
        sys.exit('ONNX Runtime failed: ' + res.stderr.strip())
    bad = 0
    for line, c in zip(res.stdout.splitlines(), cs):
        r = json.loads(line)
        if 'error' in r:  # ORT's ConvInteger takes one weight zero point only
            print('%-12s ONNX Runtime refuses it: %s' % (c['name'], r['error'][-90:]))
            continue
        o = r['out']
        last = ('z', c['z']) if 'z' in c else ('y', c['y'])
        for k, want in (last, ('xq', c['xq']), ('xs', [c['scale']]), ('xz', [c['zp']])):
            got = np.asarray(o[k], dtype=np.float64)
            ok = np.array_equal(got, np.asarray(want, dtype=np.float64).reshape(-1))
            print('%-12s %-3s %s' % (c['name'], k, 'same as ONNX Runtime' if ok else 'DIFFERS'))
            bad += not ok
    if bad:
        sys.exit('%d outputs differ from ONNX Runtime' % bad)


def main():
    cs = cases()
    for c in cs:
        onnx.save(model(c), os.path.join(HERE, c['name'] + '.onnx'))
    onnx.save(model_3d(), os.path.join(HERE, 'conv_3d.onnx'))
    with open(os.path.join(HERE, 'int8_cases.h'), 'w') as f:
        f.write(header(cs))
    if len(sys.argv) == 3 and sys.argv[1] == '--ort':
        check_ort(cs, sys.argv[2])


if __name__ == '__main__':
    main()
