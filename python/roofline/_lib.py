"""_lib.py — loads libroofline.so with ctypes and declares the C calls the package uses.

Owns the search for the library and the struct layouts mirrored from include/roofline/*.h; never
holds analysis logic (that is the C library's). Search order: $ROOFLINE_LIB, the build tree
when used from a source checkout (../../build), the loader's (ldconfig's cache, libroofline.so.0),
then the libdir of an installed roofline.pc (pkg-config). The structs are checked against the
loaded library's own layout (rf_abi_layout) before any call.
"""
import ctypes
import ctypes.util
import os
import subprocess

c_double, c_int, c_int64, c_uint32, c_uint64, c_size_t, c_char_p, c_void_p = (
    ctypes.c_double, ctypes.c_int, ctypes.c_int64, ctypes.c_uint32, ctypes.c_uint64,
    ctypes.c_size_t, ctypes.c_char_p, ctypes.c_void_p)
POINTER = ctypes.POINTER


class RooflineError(Exception):
    """A call of the library failed; the message is the library's one sentence."""


class Allocator(ctypes.Structure):
    _fields_ = [("malloc_fn", c_void_p), ("realloc_fn", c_void_p), ("free_fn", c_void_p),
                ("user", c_void_p)]


class Buf(ctypes.Structure):
    _fields_ = [("data", c_void_p), ("len", c_size_t), ("cap", c_size_t), ("max", c_size_t),
                ("a", Allocator)]


class Writer(ctypes.Structure):
    _fields_ = [("write", c_void_p), ("user", c_void_p)]


class Attr(ctypes.Structure):  # rf_attr
    _fields_ = [("name", c_char_p), ("type", c_int), ("i", c_int64), ("f", c_double),
                ("s", c_char_p), ("ints", POINTER(c_int64)), ("floats", POINTER(c_double)),
                ("n", c_uint32)]


class OpInput(ctypes.Structure):  # rf_op_input
    _fields_ = [("dtype", c_int), ("rank", c_uint32), ("dims", POINTER(c_int64)),
                ("weight", c_int), ("values", POINTER(c_int64)), ("n_values", c_uint32)]


class LayerCost(ctypes.Structure):  # rf_layer_cost
    _fields_ = [("flops", c_double), ("bias_flops", c_double), ("weight_bytes", c_double),
                ("input_bytes", c_double), ("output_bytes", c_double),
                ("kv_read_bytes", c_double), ("kv_write_bytes", c_double), ("bytes", c_double),
                ("params", c_uint64), ("known", c_int), ("reason", ctypes.c_char * 96)]


class Measured(ctypes.Structure):  # rf_measured
    _fields_ = [("time_s", c_double), ("min_s", c_double), ("max_s", c_double),
                ("runs", ctypes.c_uint32)]


class ShapeBinding(ctypes.Structure):  # rf_shape_binding
    _fields_ = [("name", ctypes.c_char * 256), ("is_dim", c_int), ("rank", c_uint32),
                ("dims", c_int64 * 8), ("value", c_int64)]


class ModelOpts(ctypes.Structure):  # rf_model_opts
    _fields_ = [("format", c_int), ("bindings", POINTER(ShapeBinding)), ("n_bindings", c_size_t),
                ("batch", c_uint64), ("seq", c_uint64), ("granular", c_int),
                ("trips", ctypes.c_char_p)]


class ProfileHead(ctypes.Structure):  # the first fields of rf_profile
    _fields_ = [("graph", c_void_p), ("cost", c_void_p), ("result", c_void_p)]


ATTR_INT, ATTR_FLOAT, ATTR_STRING, ATTR_INTS, ATTR_FLOATS = range(5)
CEILING_COMPUTE, CEILING_BANDWIDTH, CEILING_NETWORK = 0, 1, 2

# (name, restype, argtypes); every rf_status-returning call is checked by `call`.
_SIGS = [
    ("rf_ctx_new", c_int, [POINTER(c_void_p), c_void_p]),
    ("rf_ctx_free", None, [c_void_p]),
    ("rf_ctx_errmsg", c_char_p, [c_void_p]),
    ("rf_status_str", c_char_p, [c_int]),
    ("rf_version", c_char_p, []),
    ("rf_buf_init", None, [POINTER(Buf), c_void_p, c_size_t]),
    ("rf_buf_free", None, [POINTER(Buf)]),
    ("rf_buf_writer", Writer, [POINTER(Buf)]),
    ("rf_machine_resolve", c_int, [c_void_p, c_char_p, POINTER(c_void_p)]),
    ("rf_machine_free", None, [c_void_p]),
    ("rf_machine_write_json", c_int, [c_void_p, c_void_p, c_int, POINTER(Writer)]),
    ("rf_machine_select", c_int, [c_void_p, c_void_p, c_int, c_char_p, POINTER(c_size_t)]),
    ("rf_probe_measured", c_int, [c_void_p, POINTER(c_void_p)]),
    ("rf_analysis_new", c_int, [c_void_p, c_void_p, c_size_t, c_size_t, c_int, c_uint64,
                                POINTER(c_void_p)]),
    ("rf_analysis_add_detail", c_int, [c_void_p, c_char_p, c_size_t, c_char_p, c_char_p, c_int,
                                       c_double, c_double]),
    ("rf_analysis_add_measured", c_int, [c_void_p, c_char_p, c_size_t, c_char_p, c_char_p,
                                         c_int, c_double, c_double, c_void_p]),
    ("rf_analysis_set_network", c_int, [c_void_p, c_void_p, c_size_t]),
    ("rf_analysis_add_net", c_int, [c_void_p, c_char_p, c_size_t, c_char_p, c_char_p, c_int,
                                    c_double, c_double, c_double, c_void_p]),
    ("rf_machine_clone", c_int, [c_void_p, c_void_p, POINTER(c_void_p)]),
    ("rf_interconnect_find", c_int, [c_void_p, c_char_p, POINTER(c_void_p)]),
    ("rf_machine_add_interconnect", c_int, [c_void_p, c_void_p, c_void_p]),
    ("rf_analysis_finish", c_int, [c_void_p, c_char_p, POINTER(c_void_p)]),
    ("rf_analysis_free", None, [c_void_p]),
    ("rf_result_free", None, [c_void_p]),
    ("rf_sort_parse", c_int, [c_void_p, c_char_p, POINTER(c_int)]),
    ("rf_report_json", c_int, [c_void_p, c_void_p, POINTER(Writer)]),
    ("rf_report_table", c_int, [c_void_p, c_void_p, c_void_p, POINTER(Writer)]),
    ("rf_report_chart_svg", c_int, [c_void_p, POINTER(c_void_p), c_size_t, c_void_p, c_void_p,
                                    POINTER(Writer)]),
    ("rf_report_chart_html", c_int, [c_void_p, POINTER(c_void_p), c_size_t, c_void_p, c_void_p,
                                     POINTER(Writer)]),
    ("rf_shape_binding_parse", c_int, [c_void_p, c_char_p, c_int, POINTER(ShapeBinding)]),
    ("rf_profile_model", c_int, [c_void_p, c_char_p, POINTER(ModelOpts), c_void_p, c_size_t,
                                 c_size_t, POINTER(POINTER(ProfileHead))]),
    ("rf_profile_free", None, [c_void_p]),
    ("rf_op_cost", c_int, [c_void_p, c_char_p, POINTER(OpInput), c_uint32, POINTER(Attr),
                           c_uint32, POINTER(LayerCost), POINTER(c_int64), POINTER(c_uint32)]),
    ("rf_dtype_from_name", c_int, [c_char_p, POINTER(c_int)]),
]


def _pkg_config_libdir():
    """The libdir of an installed roofline.pc (PKG_CONFIG_PATH honoured), or None."""
    try:
        out = subprocess.run(["pkg-config", "--variable=libdir", "roofline"],
                             capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else None


def _candidates():
    env = os.environ.get("ROOFLINE_LIB")
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    tree = os.path.normpath(os.path.join(here, "..", ".."))
    if os.path.exists(os.path.join(tree, "src", "core")):  # used from a source checkout
        for build in ("build", "build-san"):
            yield os.path.join(tree, build, "libroofline.so")
    found = ctypes.util.find_library("roofline")  # the loader's cache (ldconfig)
    if found:
        yield found
    yield "libroofline.so.0"
    libdir = _pkg_config_libdir()  # a prefix outside the loader's path
    if libdir:
        yield os.path.join(libdir, "libroofline.so.0")


# The ctypes copies above and the C structs they mirror; the library reports its own layout.
_LAYOUTS = [(Allocator, "rf_allocator", True), (Buf, "rf_buf", True), (Writer, "rf_writer", True),
            (Attr, "rf_attr", True), (OpInput, "rf_op_input", True),
            (LayerCost, "rf_layer_cost", True), (Measured, "rf_measured", True),
            (ShapeBinding, "rf_shape_binding", True), (ModelOpts, "rf_model_opts", True),
            (ProfileHead, "rf_profile", False)]  # the head of rf_profile: offsets only


def layout_mismatches(lib):
    """Every size or field offset of a ctypes struct here that differs from the loaded library's
    (rf_abi_layout); [] when all agree."""
    fn = getattr(lib, "rf_abi_layout", None)
    if fn is None:
        return ["the library does not report its struct layouts (rf_abi_layout)"]
    fn.restype = c_int
    fn.argtypes = [c_char_p, c_char_p, POINTER(c_size_t)]
    bad = []
    v = c_size_t()
    for cls, name, whole in _LAYOUTS:
        if whole:
            if not fn(name.encode(), None, ctypes.byref(v)):
                bad.append("%s unknown to the library" % name)
            elif v.value != ctypes.sizeof(cls):
                bad.append("sizeof(%s) %d, here %d" % (name, v.value, ctypes.sizeof(cls)))
        for field, _ in cls._fields_:
            if not fn(name.encode(), field.encode(), ctypes.byref(v)):
                bad.append("%s.%s unknown to the library" % (name, field))
            elif v.value != getattr(cls, field).offset:
                bad.append("%s.%s at %d, here %d" % (name, field, v.value,
                                                       getattr(cls, field).offset))
    return bad


def _load():
    errors = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            errors.append(str(e))
            continue
        for name, res, args in _SIGS:
            fn = getattr(lib, name)
            fn.restype = res
            fn.argtypes = args
        lib.path = path
        bad = layout_mismatches(lib)
        if bad:
            raise RooflineError("%s: its structs differ from this package's copies (%s): the "
                                "library and the package come from different versions"
                                % (path, "; ".join(bad[:4])))
        return lib
    raise RooflineError("libroofline.so not found (build it with `make`, install it, or set "
                        "ROOFLINE_LIB): " + "; ".join(errors))


lib = _load()


class Context:
    """One rf_ctx for the duration of a `with` block; `check` raises on a failed status."""

    def __enter__(self):
        p = c_void_p()
        if lib.rf_ctx_new(ctypes.byref(p), None) != 0:
            raise MemoryError("rf_ctx_new")
        self.ptr = p
        return self

    def __exit__(self, *exc):
        lib.rf_ctx_free(self.ptr)

    def check(self, status):
        if status != 0:
            msg = lib.rf_ctx_errmsg(self.ptr).decode("utf-8", "replace")
            raise RooflineError(msg or lib.rf_status_str(status).decode())
        return status

    def render(self, fn, *args):
        """Call a renderer fn(ctx, *args, writer) into a buffer and return the text."""
        buf = Buf()
        lib.rf_buf_init(ctypes.byref(buf), self.ptr, 0)
        try:
            w = lib.rf_buf_writer(ctypes.byref(buf))
            self.check(fn(self.ptr, *args, ctypes.byref(w)))
            return ctypes.string_at(buf.data, buf.len).decode("utf-8") if buf.len else ""
        finally:
            lib.rf_buf_free(ctypes.byref(buf))
