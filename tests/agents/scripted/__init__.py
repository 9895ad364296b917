"""The scripted test agent's commands, by topic (tests/agents/scripted_agent.py
lists them all and runs the agent)."""
