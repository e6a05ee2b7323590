from backend.cli import app

app(prog_name="lectern")
