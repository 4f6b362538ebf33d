"""The quality agent's real checks on a generated front-end project: syntax (`parsers`), import resolution
(`imports`) and the project's own toolchain, `tsc --noEmit` and its build (`toolchain`)."""
