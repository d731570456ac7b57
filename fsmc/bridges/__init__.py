"""fsmc's sites in the agents' ecosystem: BrowserGym tasks, an AgentLab benchmark, an OpenEnv server and client."""
