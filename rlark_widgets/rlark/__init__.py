"""The RLark side: the Job, role planning, the rule catalogue, the CRD schema and the run record."""
