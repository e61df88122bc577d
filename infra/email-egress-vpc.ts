/**
 * The network of the SMTP functions when `emailEgress=vpc`: private subnets whose traffic leaves
 * through NAT gateways with Elastic IPs, so mail servers see fixed addresses the operator can give
 * reverse DNS and name in the request that lifts Lambda's port-25 block. Only ports 25 (SMTP), 53
 * (DNS) and 443 (DynamoDB, Secrets Manager) leave; DynamoDB goes through a gateway endpoint.
 */
import type { RemovalPolicy } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export interface EmailEgressVpcProps {
  /** Pre-allocated Elastic IPs (one per NAT gateway); unset, new ones. */
  eipAllocationIds?: readonly string[];
  removalPolicy: RemovalPolicy;
  logRetentionDays: logs.RetentionDays;
}

export class EmailEgressVpc extends Construct {
  readonly vpc: ec2.Vpc;
  readonly securityGroup: ec2.SecurityGroup;

  constructor(scope: Construct, id: string, props: EmailEgressVpcProps) {
    super(scope, id);
    const natGateways = props.eipAllocationIds?.length ?? 2;
    this.vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: natGateways,
      natGateways,
      ...(props.eipAllocationIds
        ? { natGatewayProvider: ec2.NatProvider.gateway({ eipAllocationIds: [...props.eipAllocationIds] }) }
        : {}),
      subnetConfiguration: [
        { name: 'public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 },
        { name: 'smtp', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 22 },
      ],
      gatewayEndpoints: { DynamoDb: { service: ec2.GatewayVpcEndpointAwsService.DYNAMODB } },
    });
    const flowLogs = new logs.LogGroup(this, 'FlowLogs', {
      retention: props.logRetentionDays,
      removalPolicy: props.removalPolicy,
    });
    this.vpc.addFlowLog('FlowLog', { destination: ec2.FlowLogDestination.toCloudWatchLogs(flowLogs) });

    this.securityGroup = new ec2.SecurityGroup(this, 'SmtpFunctions', {
      vpc: this.vpc,
      description: 'SMTP functions: out on 25 (mail servers), 53 (DNS) and 443 (AWS APIs) only',
      allowAllOutbound: false,
    });
    const anywhere = ec2.Peer.anyIpv4();
    this.securityGroup.addEgressRule(anywhere, ec2.Port.tcp(25), 'SMTP to mail exchangers');
    this.securityGroup.addEgressRule(anywhere, ec2.Port.tcp(443), 'AWS APIs (Secrets Manager, DynamoDB)');
    this.securityGroup.addEgressRule(anywhere, ec2.Port.udp(53), 'DNS (MX lookups)');
    this.securityGroup.addEgressRule(anywhere, ec2.Port.tcp(53), 'DNS over TCP (long answers)');
  }
}
