"""Lectern: an ask-this-book assistant for static documentation sites."""
