"""Training example: PPO (skrl, on JAX, CPU only) learns mvsim/GoalReach-v0, then is evaluated on fixed seeds.

    python -m mvsim_ros.gym.training --steps 400000 --seed 0 --output runs/goal_reach

The policy sees the goal in the vehicle frame and the vehicle's odometry (observation entries 'goal' and
'odometry', flattened: 5 numbers), not the lidar: GoalReach draws its goals in free straight lines. The copies run
in a gymnasium SyncVectorEnv over MvsimEnv whose finished copies reset in the same step (AutoresetMode.SAME_STEP:
PPO then never learns from a step that crosses two episodes). Evaluation: the policy's mean action (no sampling)
on `episodes` episodes of a single env seeded eval_seed, eval_seed + 1, ...; success is GoalReach's 'is_success'.
Results (success rates and mean returns before and after training, wall time) go to OUTPUT/result.json, the
trained policy's parameters to OUTPUT/policy.pickle. Needs the extra "train" (skrl[jax]; docs/gym.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import time
from typing import Any, Callable, Sequence

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.wrappers import FilterObservation, FlattenObservation
from skrl import config as skrl_config
from skrl.agents.jax.ppo import PPO, PPO_CFG
from skrl.envs.wrappers.jax import wrap_env
from skrl.memories.jax import RandomMemory
from skrl.trainers.jax import SequentialTrainer
from skrl.utils import set_seed
from skrl.utils.model_instantiators.jax import deterministic_model, gaussian_model

from mvsim_ros.gym import arguments
from mvsim_ros.gym.registration import GOAL_REACH_ID, register_envs

# skrl's JAX arrays as numpy arrays, on the CPU
skrl_config.jax.backend = "numpy"
skrl_config.jax.device = "cpu"

#: Observation entries the policy sees.
POLICY_KEYS = ("goal", "odometry")
#: Hidden layers of the policy and value networks (tanh units).
HIDDEN_LAYERS = (64, 64)
#: Smallest log standard deviation of the policy's actions (normalised units): its spread stays >= 0.05, so that
#: the probability ratios of PPO's updates stay finite once the policy has become nearly deterministic.
MIN_LOG_STD = -3.0
#: Initial log standard deviation of the policy's actions: a spread of 0.37 of the action range explores without
#: drowning the proportional steering the policy has to learn in noise.
INITIAL_LOG_STD = -1.0
#: Seed of the first evaluation episode, far from the training seeds.
EVAL_SEED = 10_000


@dataclasses.dataclass(frozen=True)
class TrainingConfig:
    """What a training run does. steps: env steps in all (over all copies); num_envs: copies stepped together;
    rollouts: env steps per copy between PPO updates; learning_epochs, mini_batches: PPO's passes over a rollout;
    learning_rate: Adam's step size; episodes: evaluation episodes before and after; eval_seed: the first one's seed."""

    steps: int = 400_000
    seed: int = 0
    num_envs: int = 8
    rollouts: int = 64
    learning_epochs: int = 5
    mini_batches: int = 4
    learning_rate: float = 1e-3
    episodes: int = 20
    eval_seed: int = EVAL_SEED
    env_id: str = GOAL_REACH_ID


@dataclasses.dataclass(frozen=True)
class Evaluation:
    """A policy's evaluation: the share of episodes that reached the goal, the mean undiscounted return, the mean
    episode length [env steps]."""

    success_rate: float
    mean_return: float
    mean_length: float


@dataclasses.dataclass(frozen=True)
class TrainingResult:
    """Evaluations before and after training, the env steps trained and the training's wall time [s]."""

    before: Evaluation
    after: Evaluation
    steps: int
    train_wall_s: float


def policy_view(env: gymnasium.Env) -> gymnasium.Env:
    """`env` with only the POLICY_KEYS entries of its observation, flattened into one Box."""
    return FlattenObservation(FilterObservation(env, list(POLICY_KEYS)))


def make_training_env(env_id: str, num_envs: int) -> SyncVectorEnv:
    """`num_envs` copies of the registered `env_id` as the policy sees them, reset in the step that ends them."""
    register_envs()
    return SyncVectorEnv([lambda: policy_view(gymnasium.make(env_id)) for _ in range(num_envs)],
                         autoreset_mode=AutoresetMode.SAME_STEP)


def build_agent(env: Any, config: TrainingConfig) -> PPO:
    """A PPO agent for the wrapped vector env: a Gaussian policy and a value network (HIDDEN_LAYERS, tanh)."""
    network = [{"name": "net", "input": "OBSERVATIONS", "layers": list(HIDDEN_LAYERS), "activations": "tanh"}]
    spaces = {"observation_space": env.observation_space, "action_space": env.action_space, "device": env.device}
    # the mean action through tanh: inside the action space, so that a clipped sample's probability stays finite
    policy = gaussian_model(**spaces, clip_actions=True, min_log_std=MIN_LOG_STD, initial_log_std=INITIAL_LOG_STD,
                            network=network, output="tanh(ACTIONS)")
    models = {"policy": policy,
              "value": deterministic_model(**spaces, network=network, output="ONE")}
    for model in models.values():
        model.init_state_dict(role="")
    # value_clip 0: returns reach +-10 (arrival, collision), far beyond skrl's default clip of 0.2 per update
    cfg = PPO_CFG(rollouts=config.rollouts, learning_epochs=config.learning_epochs,
                  mini_batches=config.mini_batches, learning_rate=config.learning_rate, value_clip=0.0)
    cfg.experiment.write_interval = 0
    cfg.experiment.checkpoint_interval = 0
    memory = RandomMemory(memory_size=config.rollouts, num_envs=env.num_envs, device=env.device)
    return PPO(models=models, memory=memory, observation_space=env.observation_space, action_space=env.action_space,
               device=env.device, cfg=cfg)


def mean_action_policy(agent: PPO) -> Callable[[np.ndarray], np.ndarray]:
    """The agent's policy without sampling (its observation scaling included): observation (flat) -> its mean
    action, clipped into the action space."""
    def act(observation: np.ndarray) -> np.ndarray:
        _, outputs = agent.act(np.asarray(observation, dtype=np.float32)[None], None, timestep=0, timesteps=1)
        return np.clip(np.asarray(outputs["mean_actions"], dtype=np.float32)[0], -1.0, 1.0)
    return act


def evaluate(policy: Callable[[np.ndarray], np.ndarray], env_id: str, episodes: int, first_seed: int) -> Evaluation:
    """`policy` on `episodes` episodes of one env (registered id, its time limit), seeded first_seed, +1, ..."""
    register_envs()
    env = policy_view(gymnasium.make(env_id))
    successes, returns, lengths = 0, [], []
    try:
        for episode in range(episodes):
            observation, _ = env.reset(seed=first_seed + episode)
            total, length, done, info = 0.0, 0, False, {}
            while not done:
                observation, reward, terminated, truncated, info = env.step(policy(observation))
                total, length, done = total + float(reward), length + 1, terminated or truncated
            successes += bool(info.get("is_success", False))
            returns.append(total)
            lengths.append(length)
    finally:
        env.close()
    return Evaluation(successes / episodes, float(np.mean(returns)), float(np.mean(lengths)))


def train(config: TrainingConfig, output: str | os.PathLike | None = None) -> TrainingResult:
    """Evaluate the untrained policy, train it with PPO for config.steps env steps, evaluate it again; with
    `output`, write result.json and policy.pickle there."""
    set_seed(config.seed)
    env = wrap_env(make_training_env(config.env_id, config.num_envs), wrapper="gymnasium")
    try:
        agent = build_agent(env, config)
        before = evaluate(mean_action_policy(agent), config.env_id, config.episodes, config.eval_seed)
        trainer = SequentialTrainer(env=env, agents=agent, cfg={
            "timesteps": max(1, config.steps // config.num_envs), "headless": True, "disable_progressbar": True,
            "close_environment_at_exit": False})
        start = time.perf_counter()
        trainer.train()
        train_wall_s = time.perf_counter() - start
        agent.enable_models_training_mode(False)
        after = evaluate(mean_action_policy(agent), config.env_id, config.episodes, config.eval_seed)
    finally:
        env.close()
    result = TrainingResult(before, after, max(1, config.steps // config.num_envs) * config.num_envs, train_wall_s)
    if output is not None:
        os.makedirs(output, exist_ok=True)
        agent.policy.save(os.path.join(output, "policy.pickle"))
        with open(os.path.join(output, "result.json"), "w", encoding="utf-8") as stream:
            json.dump({"config": dataclasses.asdict(config), "result": dataclasses.asdict(result)}, stream, indent=2)
    return result


def parse_arguments(argv: Sequence[str] | None) -> tuple[TrainingConfig, str | None]:
    """The command line: --steps, --seed, --envs, --episodes, --output."""
    parser = argparse.ArgumentParser(prog="python -m mvsim_ros.gym.training", description=__doc__.split("\n")[0])
    defaults = TrainingConfig()
    parser.add_argument("--steps", type=int, default=defaults.steps, help="env steps in all (default %(default)s)")
    parser.add_argument("--seed", type=int, default=defaults.seed, help="training seed (default %(default)s)")
    parser.add_argument("--envs", type=int, default=defaults.num_envs, help="copies stepped together")
    parser.add_argument("--episodes", type=int, default=defaults.episodes, help="evaluation episodes")
    parser.add_argument("--output", default=None, help="folder for result.json and policy.pickle")
    args = parser.parse_args(argv)
    config = TrainingConfig(steps=arguments.integer("steps", args.steps, 1), seed=args.seed,
                            num_envs=arguments.integer("envs", args.envs, 1),
                            episodes=arguments.integer("episodes", args.episodes, 1))
    return config, args.output


def main(argv: Sequence[str] | None = None) -> int:
    """Train, print the evaluations and the wall time."""
    config, output = parse_arguments(argv)
    result = train(config, output)
    for name, evaluation in (("untrained", result.before), ("trained", result.after)):
        print(f"{name}: success {evaluation.success_rate:.0%} over {config.episodes} episodes, mean return "
              f"{evaluation.mean_return:.2f}, mean length {evaluation.mean_length:.0f} steps")
    print(f"trained {result.steps} env steps in {result.train_wall_s:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
