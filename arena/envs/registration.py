"""Gymnasium ids for every game and variant: ``gymnasium.make("tabletop_arena/Solenia-v0", players=3)``.

Why ids at all: trainers (CleanRL, RL Zoo, RLlib's string envs, ``gymnasium.make_vec``) take an
environment *id*, not a constructor. Every game has ``tabletop_arena/<Game>-v0`` (its default
variant, two players; ``players``, ``variant``, ``opponents``… are keyword arguments of
``gymnasium.make``) and every variant ``tabletop_arena/<Game>-<variant>-v0`` (its smallest
player count, so a solo variant needs no argument). Each id also names a vector entry point,
the batched env of :mod:`arena.envs.vector` (several sub-envs per worker process), which
``gymnasium.make_vec`` builds with ``vectorization_mode="vector_entry_point"`` — and, by
Gymnasium's rule, when no mode is given.

Why a module of its own, importing nothing of ours: Gymnasium 0.29 calls :func:`register_envs`
through the ``gymnasium.envs`` entry point (pyproject.toml) *while ``gymnasium`` itself is being
imported*, so this must not import :mod:`arena.envs.gymnasium` (which imports gymnasium). The
entry points are strings, resolved when an env is made. Gymnasium 1.x no longer loads plugins:
there ``import arena.envs.gymnasium`` registers the ids, or ``gymnasium.make`` imports it for
you with the ``"module:id"`` form, ``"arena.envs.gymnasium:tabletop_arena/Solenia-v0"``.
"""

from __future__ import annotations

from arena.envs.core import configurations

#: The namespace of every id (the entry point's name, which Gymnasium 0.29 uses as namespace).
NAMESPACE = "tabletop_arena"
#: Game -> the name in its ids.
NAMES = {"black_angel": "BlackAngel", "solenia": "Solenia", "orbital": "Orbital"}
ENTRY_POINT = "arena.envs.gymnasium:TabletopEnv"
#: ``gymnasium.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point", workers=W)``:
#: W worker processes, each stepping N/W sub-envs per message (arena/envs/vector.py).
VECTOR_ENTRY_POINT = "arena.envs.vector:BatchedVectorEnv"


def env_ids() -> dict[str, dict[str, object]]:
    """Every id -> the constructor keywords it stands for."""
    ids: dict[str, dict[str, object]] = {}
    for game, name in NAMES.items():
        ids[f"{NAMESPACE}/{name}-v0"] = {"game": game}
        smallest: dict[str, int] = {}
        for players, variant in configurations(game):
            smallest[variant] = min(players, smallest.get(variant, players))
        for variant, players in smallest.items():
            ids[f"{NAMESPACE}/{name}-{variant}-v0"] = {"game": game, "variant": variant,
                                                        "players": players}
    return ids


def register_envs() -> None:
    """Register every id with Gymnasium (again is harmless: an id already there is left as is)."""
    from gymnasium.envs import registration

    registry, register = registration.registry, registration.register
    # Gymnasium 1.x: a vector entry point too, for its make_vec (VectorizeMode is 1.x's; the
    # batched env needs 1.x's vector API, AutoresetMode, so 0.29 gets none)
    extra = ({"vector_entry_point": VECTOR_ENTRY_POINT}
             if hasattr(registration, "VectorizeMode") else {})
    namespace = getattr(registration, "current_namespace", None)
    for env_id, kwargs in env_ids().items():
        # Under 0.29's plugin loader the namespace comes from the entry point's name: give the
        # bare name then, or Gymnasium warns that the id's own namespace is overridden.
        if namespace is not None:
            env_id = env_id.split("/", 1)[1]
            full = f"{namespace}/{env_id}"
        else:
            full = env_id
        if full not in registry:
            register(id=env_id, entry_point=ENTRY_POINT, kwargs=dict(kwargs), **extra)
