"""Environment wrappers (classic gym-style 4-tuple API)."""


class Wrapper:
    def __init__(self, env):
        self.env = env

    def __getattr__(self, name):
        return getattr(self.env, name)

    def reset(self):
        return self.env.reset()

    def step(self, action):
        return self.env.step(action)


class TimeLimit(Wrapper):
    """Ends episodes after ``max_steps`` steps.

    Like gym's TimeLimit, an episode cut by the limit is reported with
    ``done=True`` and ``info["TimeLimit.truncated"] = True``.
    """

    def __init__(self, env, max_steps):
        super().__init__(env)
        self.max_steps = max_steps
        self.t = 0

    def reset(self):
        self.t = 0
        return self.env.reset()

    def step(self, action):
        obs, reward, done, info = self.env.step(action)
        self.t += 1
        if self.t >= self.max_steps and not done:
            done = True
            info = dict(info, **{"TimeLimit.truncated": True})
        return obs, reward, done, info


class EpisodeStats(Wrapper):
    """Records return, length and exit of each finished episode."""

    def __init__(self, env):
        super().__init__(env)
        self.episodes = []
        self._ret = 0.0
        self._len = 0

    def reset(self):
        self._ret, self._len = 0.0, 0
        return self.env.reset()

    def step(self, action):
        obs, reward, done, info = self.env.step(action)
        self._ret += reward
        self._len += 1
        if done:
            ep = {"return": self._ret, "length": self._len, "exit": info.get("exit", "timeout")}
            self.episodes.append(ep)
            info = dict(info, episode=ep)
        return obs, reward, done, info
