"""The exercise format: master files, the files generated from them, the submission loader, the
static policy, and the result of a grading. Nothing here imports torch."""
