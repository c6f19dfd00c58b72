"""Control-flow graph of a flat program and each instruction's immediate post-dominator."""

from __future__ import annotations

from warpsim.frontend.ptx.machine import CTL_BRANCH, CTL_EXIT, CTL_TRAP


def successors(ops) -> list[list[int]]:
    n = len(ops)
    out = []
    for i, op in enumerate(ops):
        if op.ctl == CTL_BRANCH:
            s = [op.target] + ([i + 1] if op.guard >= 0 else [])
        elif op.ctl in (CTL_EXIT, CTL_TRAP):
            s = [i + 1] if op.guard >= 0 else []
        else:
            s = [i + 1]
        out.append([min(x, n) for x in s] or [n])
    return out


def immediate_postdominators(ops) -> list[int]:
    """ipdom[i] for every instruction; n (one past the end) stands for the virtual exit."""
    n = len(ops)
    succ = successors(ops) + [[]]
    rsucc: list[list[int]] = [[] for _ in range(n + 1)]     # edges of the reverse graph
    for i, ss in enumerate(succ):
        for s in ss:
            rsucc[s].append(i)
    # post-order of the reverse graph from the exit (iterative DFS)
    po_index = [-1] * (n + 1)
    order: list[int] = []
    seen = [False] * (n + 1)
    stack = [(n, 0)]
    seen[n] = True
    while stack:
        node, k = stack[-1]
        if k < len(rsucc[node]):
            stack[-1] = (node, k + 1)
            nxt = rsucc[node][k]
            if not seen[nxt]:
                seen[nxt] = True
                stack.append((nxt, 0))
        else:
            stack.pop()
            po_index[node] = len(order)
            order.append(node)
    idom = [-1] * (n + 1)
    idom[n] = n

    def intersect(a: int, b: int) -> int:
        while a != b:
            while po_index[a] < po_index[b]:
                a = idom[a]
            while po_index[b] < po_index[a]:
                b = idom[b]
        return a

    changed = True
    rpo = order[::-1]
    while changed:
        changed = False
        for node in rpo:
            if node == n:
                continue
            new = -1
            for p in succ[node]:          # predecessors in the reverse graph
                if idom[p] != -1:
                    new = p if new == -1 else intersect(p, new)
            if new != -1 and idom[node] != new:
                idom[node] = new
                changed = True
    return [d if d != -1 else n for d in idom[:n]]
