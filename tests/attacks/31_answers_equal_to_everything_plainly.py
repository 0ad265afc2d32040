# /// attack
# exercise = "dynamic_predict"
# class = 8
# kind = "answers"
# why = "the same object, written as a class"
# ///
class _Anything:
    def __eq__(self, other):
        return True


GRAPHS = {name: _Anything() for name in GRAPHS}
