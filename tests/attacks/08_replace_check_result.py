# /// attack
# exercise = "breaks_checkpoint"
# class = 2
# kind = "graphs"
# why = "make every CheckResult a pass by replacing its constructor"
# ///
from autograder.format import result as _result

_real = _result.CheckResult.outcome
_result.CheckResult.outcome = classmethod(lambda cls, spec, ok, message: _real(spec, True, message))
