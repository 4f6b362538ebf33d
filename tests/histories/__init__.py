"""The committed workflow histories (`tests/fixtures/histories/`): the script that records them and the strict
replayer that replays them."""
