"""Tiny ZeroMQ bot: connect a DEALER to argv[1], say hello, echo one message back."""

import sys

import zmq

ctx = zmq.Context()
sock = ctx.socket(zmq.DEALER)
sock.setsockopt(zmq.LINGER, 1000)
sock.connect(sys.argv[1])
sock.send(b"hello")
if sock.poll(10_000):
    sock.send(sock.recv())
sock.close()
ctx.term()
