"""The app builder family's models (seed 003): Session_Documents, the Execution_Plan, the workspace, quality."""
