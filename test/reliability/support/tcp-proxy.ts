// A TCP proxy in front of a server, to make it unreachable and reachable again on the same
// address: `cut()` closes the listening socket and every open connection (what a network
// partition or a stopped server looks like to a client); `restore()` listens again.
import * as net from 'node:net';

export class TcpProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly targetPort: number,
    readonly port: number,
  ) {}

  static async start(targetPort: number): Promise<TcpProxy> {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const proxy = new TcpProxy(targetPort, port);
    await proxy.restore();
    return proxy;
  }

  async restore(): Promise<void> {
    if (this.server !== undefined) return;
    const server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, '127.0.0.1');
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.once('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.server = server;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
