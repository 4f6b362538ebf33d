"""`make bench-llm` (`python -m tests.bench.llm`): every family's README example on the model simulator at a
fixed latency profile, against its critical path of model time, with a LangGraph baseline of the writing chain.
`__main__` says what is measured; `critical_path` defines the critical path; `families` holds each family's
example as the client sends it; `client` times one run over HTTP; `baseline` is the LangGraph chain; `chart`
draws the report."""
