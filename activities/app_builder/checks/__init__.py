"""The quality agent's real checks on a generated front-end project: syntax (`parsers`), import resolution
(`imports`), registry-only dependency specs (`dependencies`) and the project's own toolchain, `tsc --noEmit` and
its build (`toolchain`), which reads nothing outside the project (`confinement`, `dependencies`)."""
