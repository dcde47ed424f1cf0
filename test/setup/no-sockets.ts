import net from 'node:net'

// The `unit` project is pure: no sockets, no wall clock, no tokenizer files. A unit test that
// listens or connects fails here with the rule, rather than passing slowly or flakily.
const RULE =
  'unit tests open no sockets: rename the file to <name>.int.test.ts (the integration project), or ' +
  '<name>.serial.test.ts when it asserts on elapsed time (see CONTRIBUTING.md, "Tests")'

net.Server.prototype.listen = function listen(): never {
  throw new Error(`net.Server.listen in a unit test: ${RULE}`)
}
net.Socket.prototype.connect = function connect(): never {
  throw new Error(`net.Socket.connect in a unit test: ${RULE}`)
}
