"""Hostile: tries to create a socket of every address family (and a socket pair of a few), and
reports in its comment what the Unix ones answered, how many others answered EAFNOSUPPORT, and
any other answer: ``AF_UNIX=OK pair:AF_UNIX=OK refused=24/24``. A vsock would reach
the hypervisor of a VM whatever the network namespace; netlink and packet sockets are kernel
surface."""

import errno
import socket

from arena.sdk import serve_bot

FAMILIES = {
    "AF_UNIX": 1, "AF_INET": 2, "AF_AX25": 3, "AF_IPX": 4, "AF_APPLETALK": 5, "AF_X25": 9,
    "AF_INET6": 10, "AF_KEY": 15, "AF_NETLINK": 16, "AF_PACKET": 17, "AF_RDS": 21, "AF_LLC": 26,
    "AF_CAN": 29, "AF_TIPC": 30, "AF_BLUETOOTH": 31, "AF_ALG": 38, "AF_VSOCK": 40, "AF_KCM": 41,
    "AF_QIPCRTR": 42, "AF_SMC": 43, "AF_XDP": 44, "AF_MCTP": 45,
}


def attempt(make, *args) -> str:
    try:
        made = make(*args)
        for sock in made if isinstance(made, tuple) else (made,):
            sock.close()
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))
    return "OK"


def probe() -> dict[str, str]:
    out = {}
    for name, family in FAMILIES.items():
        answers = set()
        for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_RAW, socket.SOCK_SEQPACKET):
            answers.add(attempt(socket.socket, family, kind))
        # Any kind that opened counts: the family is reachable.
        out[name] = "OK" if "OK" in answers else "/".join(sorted(answers))
    for name in ("AF_UNIX", "AF_INET", "AF_VSOCK", "AF_NETLINK"):
        out[f"pair:{name}"] = attempt(socket.socketpair, FAMILIES[name], socket.SOCK_STREAM)
    return out


def act(observation: dict, legal_options: list):
    # A comment is short: the Unix answers, how many families were refused with EAFNOSUPPORT,
    # and every other answer in full.
    out = probe()
    unix = {k: out.pop(k) for k in ("AF_UNIX", "pair:AF_UNIX")}
    refused = [k for k, v in out.items() if v == "EAFNOSUPPORT"]
    others = " ".join(f"{k}={v}" for k, v in out.items() if v != "EAFNOSUPPORT")
    return legal_options[0].id, " ".join([*(f"{k}={v}" for k, v in unix.items()),
                                          f"refused={len(refused)}/{len(out)}", others]).strip()


if __name__ == "__main__":
    serve_bot(act)
