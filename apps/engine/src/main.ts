// `npm start`: serves the engine on PORT (default 3000).
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';

async function bootstrap(): Promise<void> {
  const port = Number(process.env.PORT ?? 3000);
  const app = await NestFactory.create(AppModule);
  app.enableShutdownHooks();
  await app.listen(port);
  process.stdout.write(`Strata engine listening on http://localhost:${port} (health: /health)\n`);
}

void bootstrap();
