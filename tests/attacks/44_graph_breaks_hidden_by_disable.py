# /// attack
# exercise = "logs_find_fix"
# class = 8
# kind = "graph_breaks"
# why = "hide the graph break by running the breaking method eagerly"
# ///
EvidenceScorer._track_peak = torch.compiler.disable(EvidenceScorer._track_peak)
