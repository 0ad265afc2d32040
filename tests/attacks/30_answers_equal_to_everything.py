# /// attack
# exercise = "guards_predict"
# class = 8
# kind = "answers"
# why = "answers that are objects equal to everything, built by a class made at run time"
# waits_for = "trust"
# ///
_make_class = type(type(0))
_eq = "_" * 2 + "eq" + "_" * 2
_hash = "_" * 2 + "hash" + "_" * 2
_Anything = _make_class("Anything", (), {_eq: lambda self, other: True, _hash: lambda self: 0})
FAILING_GUARD = {name: _Anything() for name in FAILING_GUARD}
