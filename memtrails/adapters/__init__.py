"""Adapters for agent frameworks (each behind its own extra): ``memtrails.adapters.langchain``,
``memtrails.adapters.llamaindex``."""
