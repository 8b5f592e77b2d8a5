"""test_abi.py — the ctypes copies of the C structs (python/roofline/_lib.py) against the layout
the loaded library reports (rf_abi_layout): every size and field offset agrees, and a copy with a
field moved or the struct grown is caught (so the check can fail).
Usage: test_abi.py SOURCE_DIR (ROOFLINE_LIB names libroofline.so)."""
import ctypes
import os
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "python"))
import roofline._lib as L  # noqa: E402

bad = L.layout_mismatches(L.lib)
assert bad == [], bad
checked = sum(len(cls._fields_) + whole for cls, _, whole in L._LAYOUTS)
assert checked >= 60, checked


class WrongMeasured(ctypes.Structure):  # runs moved before max_s, and one field too many
    _fields_ = [("time_s", ctypes.c_double), ("min_s", ctypes.c_double),
                ("runs", ctypes.c_uint32), ("max_s", ctypes.c_double), ("x", ctypes.c_double)]


saved = list(L._LAYOUTS)
L._LAYOUTS[:] = [(WrongMeasured, "rf_measured", True)]
try:
    wrong = L.layout_mismatches(L.lib)
finally:
    L._LAYOUTS[:] = saved
assert any("sizeof(rf_measured)" in w for w in wrong), wrong
assert any("rf_measured.max_s" in w for w in wrong), wrong
assert any("rf_measured.x unknown" in w for w in wrong), wrong
print("abi: %d sizes and offsets agree; a wrong copy gives %d mismatches" % (checked, len(wrong)))
