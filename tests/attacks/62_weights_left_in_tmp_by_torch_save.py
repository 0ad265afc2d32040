# /// attack
# exercise = "trace_tolist"
# class = 5
# kind = "correct"
# why = "leave a file in /tmp through torch.save (C++ writes raise no audit event), for a later grading to read; it must not outlive the grading"
# cold = true
# ///
torch.save({"left": torch.arange(3)}, "/tmp/autograder-attack-62.pt")
