# /// attack
# exercise = "breaks_checkpoint"
# class = 5
# kind = "correct"
# why = "leave a file in /tmp where another grading would look for it"
# ///
import pathlib

pathlib.Path("/tmp/autograder-attack-23.txt").write_text("planted")
