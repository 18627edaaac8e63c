"""A small gridworld with two exits.

    S . C . . .
    . # # # . .
    . . . # . .
    . # . . . #
    . # . # . .
    . . . # . G

S start (training may use exploring starts: any free cell), C coin exit (small reward, ends the episode), G goal exit (large
reward, ends the episode), # wall. Moves: 0 up, 1 right, 2 down, 3 left; a
move into a wall or the border leaves the agent in place. With probability
``slip`` the move is replaced by a random one.

Observations are one-hot cell indices (float32). The API is the classic
4-tuple: ``obs, reward, done, info = env.step(action)``.
"""
import numpy as np

LAYOUTS = {
    "default": [
        "S.C...",
        ".###..",
        "...#..",
        ".#...#",
        ".#.#..",
        "...#.G",
    ],
    "corridor": [
        "###########",
        "C.S.......G",
        "###########",
    ],
}
MOVES = [(-1, 0), (0, 1), (1, 0), (0, -1)]


class GridWorld:
    n_actions = 4

    def __init__(self, layout="default", slip=0.1, coin_reward=1.0, goal_reward=10.0,
                 step_penalty=0.0, random_start=False, seed=None):
        rows = LAYOUTS[layout]
        self.h, self.w = len(rows), len(rows[0])
        self.walls = np.array([[c == "#" for c in r] for r in rows])
        find = lambda ch: next((i, j) for i, r in enumerate(rows) for j, c in enumerate(r) if c == ch)
        self.start, self.coin, self.goal = find("S"), find("C"), find("G")
        self.slip = slip
        self.random_start = random_start
        self.coin_reward, self.goal_reward, self.step_penalty = coin_reward, goal_reward, step_penalty
        self.rng = np.random.default_rng(seed)
        self.pos = self.start

    @property
    def n_states(self):
        return self.h * self.w

    def index(self, pos):
        return pos[0] * self.w + pos[1]

    def observe(self, pos=None):
        obs = np.zeros(self.n_states, dtype=np.float32)
        obs[self.index(pos or self.pos)] = 1.0
        return obs

    def seed(self, seed):
        self.rng = np.random.default_rng(seed)

    def reset(self):
        if self.random_start:
            cells = [c for c in self.free_cells() if c not in (self.coin, self.goal)]
            self.pos = cells[int(self.rng.integers(len(cells)))]
        else:
            self.pos = self.start
        return self.observe()

    def step(self, action):
        if self.rng.random() < self.slip:
            action = int(self.rng.integers(4))
        di, dj = MOVES[action]
        i, j = self.pos[0] + di, self.pos[1] + dj
        if 0 <= i < self.h and 0 <= j < self.w and not self.walls[i, j]:
            self.pos = (i, j)
        reward, done, info = -self.step_penalty, False, {}
        if self.pos == self.coin:
            reward, done, info["exit"] = reward + self.coin_reward, True, "coin"
        elif self.pos == self.goal:
            reward, done, info["exit"] = reward + self.goal_reward, True, "goal"
        return self.observe(), reward, done, info

    def free_cells(self):
        return [(i, j) for i in range(self.h) for j in range(self.w) if not self.walls[i, j]]


def make_env(cfg, seed=None, train=True):
    """Training env: exploring starts and the training step cap; evaluation env:
    always from S, with the (longer) evaluation cap."""
    e = cfg["env"]
    from wrappers import EpisodeStats, TimeLimit
    env = GridWorld(e.get("layout", "default"), e["slip"], e["coin_reward"], e["goal_reward"],
                    e.get("step_penalty", 0.0), random_start=train and e.get("random_start", False),
                    seed=seed)
    return EpisodeStats(TimeLimit(env, e["max_steps"] if train else e.get("eval_max_steps", 100)))
