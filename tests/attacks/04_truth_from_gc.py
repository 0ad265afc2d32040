# /// attack
# exercise = "dynamic_predict"
# class = 1
# kind = "answers"
# why = "find the grader's truth dict among the interpreter's objects (gc reached through logging)"
# ///
import logging

_gc = logging.sys.modules["gc"]
GRAPHS = next(dict(o) for o in _gc.get_objects() if isinstance(o, dict) and set(o) == set(GRAPHS) and None not in o.values())
