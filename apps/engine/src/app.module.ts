// The engine's root module.
import { Module, type DynamicModule } from '@nestjs/common';
import type { EngineConfig } from './config/engine-config';
import { HealthController } from './health/health.controller';
import { strataApplicationImports, type StrataApplicationOptions } from './http/strata-http.module';
import { UiModule } from './ui/ui.module';

@Module({ controllers: [HealthController] })
export class AppModule {
  /** The whole engine: session use cases, HTTP API, event stream, tenants (see http/strata-http.module.ts). */
  static forRoot(config: EngineConfig, options: StrataApplicationOptions = {}): DynamicModule {
    return { module: AppModule, imports: [...strataApplicationImports(config, options), UiModule] };
  }
}
