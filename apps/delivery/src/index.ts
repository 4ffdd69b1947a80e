export { startDelivery, type StartDeliveryOptions, type DeliveryRole } from './start-delivery';
