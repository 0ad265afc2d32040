# /// attack
# exercise = "breaks_checkpoint"
# class = 3
# kind = "graphs"
# why = "loosen the child's own check parameters (a mutable dict read live), found among the interpreter's objects"
# ///
import logging

_gc = logging.sys.modules["gc"]
for _object in _gc.get_objects():
    if type(_object).__name__ == "CheckSpec":
        _object.params.clear()
