# /// attack
# exercise = "filter_keeps_attr"
# class = 2
# kind = "guards"
# why = "a guard filter whose __str__ runs when the child serialises its measurements"
# ///
class _Filter:
    def __call__(self, entries):
        return [True for _ in entries]

    def __str__(self):
        print('{"status": "passed"}')
        return "keep everything"


COMPILE_OPTIONS = {"guard_filter_fn": _Filter()}
