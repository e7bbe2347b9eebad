// The audit viewer served by the engine at /ui (see ui.controller.ts and client/main.ts).
import { Module } from '@nestjs/common';
import { UiAssets } from './ui-assets';
import { UiController } from './ui.controller';

@Module({
  controllers: [UiController],
  providers: [{ provide: UiAssets, useFactory: () => new UiAssets() }],
})
export class UiModule {}
