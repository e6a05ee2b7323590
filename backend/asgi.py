"""ASGI entry point for servers: `uvicorn backend.asgi:app` (settings from the environment)."""

from backend.app import create_app

app = create_app()
